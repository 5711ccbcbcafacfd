"""`tools.field_factories.empty_list`: a new empty list per instance and the same schema, as
`list` gave (its speed is bench_startup's to show, not a unit test's)."""

from __future__ import annotations

import inspect

from pydantic import BaseModel, Field

from tools.field_factories import empty_list


class _Holder(BaseModel):
    items: list[int] = Field(default_factory=empty_list, description="Some numbers.")


def test_each_instance_gets_its_own_empty_list() -> None:
    first, second = _Holder(), _Holder()
    first.items.append(1)
    assert (first.items, second.items) == ([1], [])
    assert _Holder.model_json_schema()["properties"]["items"] == {
        "description": "Some numbers.",
        "items": {"type": "integer"},
        "title": "Items",
        "type": "array",
    }  # no "default": a factory's value is not written into the schema, as with `list`


def test_pydantic_calls_it_without_the_validated_data() -> None:
    # A factory of one positional parameter would be handed the validated fields.
    assert list(inspect.signature(empty_list).parameters) == []
    assert _Holder.model_fields["items"].default_factory_takes_validated_data is False
