"""The types toolgen knows without reading their source: paths in the standard library,
`typing` and pydantic, the kind of each (`toolgen.analyze.types` dispatches on it) and the
schema pydantic gives the ready-made ones."""

from __future__ import annotations

from typing import Any

BOUND_KEYWORDS = {
    "ge": "minimum",
    "gt": "exclusiveMinimum",
    "le": "maximum",
    "lt": "exclusiveMaximum",
}


#: pydantic's bounded numbers (`Annotated[int, Gt(0)]` and so on): the type and its bound at 0.
CONSTRAINED_TYPES: dict[str, tuple[str, str]] = {
    "pydantic.PositiveInt": ("integer", "gt"),
    "pydantic.NegativeInt": ("integer", "lt"),
    "pydantic.NonNegativeInt": ("integer", "ge"),
    "pydantic.NonPositiveInt": ("integer", "le"),
    "pydantic.PositiveFloat": ("number", "gt"),
    "pydantic.NegativeFloat": ("number", "lt"),
    "pydantic.NonNegativeFloat": ("number", "ge"),
    "pydantic.NonPositiveFloat": ("number", "le"),
}


#: pydantic's ready-made types: the schema of each, as pydantic renders it.
FIXED_SCHEMAS: dict[str, dict[str, Any]] = {
    **{f"pydantic.{n}": {"type": "integer"} for n in ("StrictInt",)},
    "pydantic.StrictStr": {"type": "string"},
    "pydantic.StrictBool": {"type": "boolean"},
    "pydantic.StrictFloat": {"type": "number"},
    "pydantic.StrictBytes": {"type": "string", "format": "binary"},
    **{
        path: {"type": kind, BOUND_KEYWORDS[bound]: 0}
        for path, (kind, bound) in CONSTRAINED_TYPES.items()
    },
    "pydantic.SecretStr": {"type": "string", "format": "password", "writeOnly": True},
    "pydantic.SecretBytes": {"type": "string", "format": "password", "writeOnly": True},
    "pydantic.HttpUrl": {"type": "string", "format": "uri", "minLength": 1, "maxLength": 2083},
    **{
        f"pydantic.{n}": {"type": "string", "format": "uri", "minLength": 1}
        for n in ("AnyUrl", "AnyHttpUrl", "FileUrl", "FtpUrl", "WebsocketUrl", "AnyWebsocketUrl")
    },
    "pydantic.EmailStr": {"type": "string", "format": "email"},
    "pydantic.NameEmail": {"type": "string", "format": "name-email"},
    "pydantic.FilePath": {"type": "string", "format": "file-path"},
    "pydantic.DirectoryPath": {"type": "string", "format": "directory-path"},
    "pydantic.NewPath": {"type": "string", "format": "path"},
    **{f"pydantic.UUID{v}": {"type": "string", "format": f"uuid{v}"} for v in (1, 3, 4, 5)},
    "pydantic.FutureDate": {"type": "string", "format": "date"},
    "pydantic.PastDate": {"type": "string", "format": "date"},
    **{
        f"pydantic.{n}": {"type": "string", "format": "date-time"}
        for n in ("AwareDatetime", "NaiveDatetime", "FutureDatetime", "PastDatetime")
    },
    "pydantic.Base64Str": {"type": "string", "format": "base64"},
    "pydantic.Base64Bytes": {"type": "string", "format": "base64"},
    "pydantic.IPvAnyAddress": {"type": "string", "format": "ipvanyaddress"},
    "pydantic.IPvAnyInterface": {"type": "string", "format": "ipvanyinterface"},
    "pydantic.IPvAnyNetwork": {"type": "string", "format": "ipvanynetwork"},
    **{
        f"ipaddress.IPv{v}{kind}": {"type": "string", "format": f"ipv{v}{kind.lower()}"}
        for v in (4, 6)
        for kind in ("Network", "Interface")
    },
    "ipaddress.IPv4Address": {"type": "string", "format": "ipv4"},
    "ipaddress.IPv6Address": {"type": "string", "format": "ipv6"},
}


#: pydantic's `con*()` functions: the base schema and the keywords that are constraints.
CON_FUNCTIONS: dict[str, dict[str, Any]] = {
    "pydantic.conint": {"type": "integer"},
    "pydantic.confloat": {"type": "number"},
    "pydantic.constr": {"type": "string"},
    "pydantic.conbytes": {"type": "string", "format": "binary"},
    "pydantic.condecimal": {"anyOf": [{"type": "number"}, {"type": "string"}]},
    "pydantic.conlist": {"type": "array"},
    "pydantic.conset": {"type": "array", "uniqueItems": True},
    "pydantic.confrozenset": {"type": "array", "uniqueItems": True},
}
CON_CONSTRAINTS = frozenset(
    {"gt", "ge", "lt", "le", "multiple_of", "min_length", "max_length", "pattern"}
)


#: Resolved external paths and the kind of type they are; each kind has a `<kind>_schema`.
EXTERNAL_KINDS: dict[str, str] = {
    "builtins.str": "str",
    "builtins.int": "int",
    "builtins.float": "float",
    "builtins.bool": "bool",
    "builtins.bytes": "bytes",
    "builtins.None": "none",
    "builtins.object": "any",
    "typing.Any": "any",
    "builtins.list": "list",
    "typing.List": "list",
    "typing.Sequence": "list",
    "typing.MutableSequence": "list",
    "typing.Iterable": "list",
    "typing.Collection": "list",
    "builtins.set": "set",
    "typing.Set": "set",
    "typing.MutableSet": "set",
    "typing.AbstractSet": "set",
    "builtins.frozenset": "set",
    "typing.FrozenSet": "set",
    "builtins.tuple": "tuple",
    "typing.Tuple": "tuple",
    "builtins.dict": "dict",
    "typing.Dict": "dict",
    "typing.Mapping": "dict",
    "typing.MutableMapping": "dict",
    "typing.Optional": "optional",
    "typing.Union": "union",
    "typing.Literal": "literal",
    "typing.Annotated": "annotated",
    "typing.Required": "qualifier",
    "typing.NotRequired": "qualifier",
    "typing.ReadOnly": "qualifier",
    "datetime.datetime": "format",
    "datetime.date": "format",
    "datetime.time": "format",
    "datetime.timedelta": "format",
    "uuid.UUID": "format",
    "pathlib.Path": "format",
    "pathlib.PurePath": "format",
    "decimal.Decimal": "decimal",
    "pydantic.Json": "json",
    "pydantic.SkipJsonSchema": "skip",
    **dict.fromkeys(FIXED_SCHEMAS, "fixed"),
}


STRING_FORMATS = {
    "datetime.datetime": "date-time",
    "datetime.date": "date",
    "datetime.time": "time",
    "datetime.timedelta": "duration",
    "uuid.UUID": "uuid",
    "pathlib.Path": "path",
    "pathlib.PurePath": "path",
}

#: builtins pydantic has no schema of its own for: with arbitrary types allowed it checks them
#: with `isinstance`, and its JSON schema leaves them out of a union ("skipped-choice")
INSTANCE_ONLY = frozenset({"builtins.bytearray", "builtins.memoryview"})
