"""Modal screens of the chat app: help, saved sessions, settings.

Each is imported where it is opened, not with the app (the first screen paints without them);
`ChatModal`, their common base, is what the app checks to turn its own keys off beneath them.
"""

from __future__ import annotations

from typing import TypeVar

from textual.screen import ModalScreen

ScreenResult = TypeVar("ScreenResult")


class ChatModal(ModalScreen[ScreenResult]):
    """A screen of the chat app under which the chat's own keys are inactive."""
