"""The reverse question (issue 29): which catalog models run on the user's hardware, in which
GGUF type, at what context and speed — `fits_on_hardware(FitsRequest) -> FitsResult`."""

from tools.fits.request import FitsRequest, FitsResult, ModelFit, RankBy, SizeClass
from tools.fits.search import SIZE_CLASSES, fits_on_hardware

__all__ = [
    "SIZE_CLASSES",
    "FitsRequest",
    "FitsResult",
    "ModelFit",
    "RankBy",
    "SizeClass",
    "fits_on_hardware",
]
