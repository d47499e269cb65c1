"""Analysis: from a handler's source to the pieces of a descriptor.

- `handlers`: find marked handlers in a module's tree.
- `signature`: the parameters a model may pass (`exposed_parameters`, for build and fix).
- `types`: type annotations to JSON Schema, following pydantic v2's run-time schemas; its
  `SchemaBuilder` is made of `type_primitives` (scalars, containers, unions), `type_metadata`
  (`Field` and `Annotated` metadata) and `type_classes` (classes, models, aliases), on
  `type_base` (what they share) and `type_tables` (the types toolgen knows by path).
- `literals`: literal values (defaults, decorator and Field arguments) read without running code.
- `docstrings`: Google, NumPy and Sphinx docstrings, and toolgen's own sections.
- `decorators`: the marker's literal keyword arguments.
"""
