# Stand-in for `tyro.cli`, installed as `tyro` into the venv of benchmark/cleanrl_side.sh when the package mirror has
# no tyro. CleanRL's scripts call only `tyro.cli(Args)` on a flat dataclass of int, float, str and bool fields, so
# this builds the same command line with argparse: each field `some_name` becomes `--some-name VALUE` (tyro's kebab
# case; the snake-case spelling is accepted too) and each bool field also gets `--no-some-name`, as tyro does.
import argparse
import dataclasses
import typing


def _value_type(field_type):
    """The scalar type behind a field's annotation (`Optional[str]` and a bare `str = None` both give str)."""
    if isinstance(field_type, str):
        field_type = {"int": int, "float": float, "str": str, "bool": bool}.get(field_type, str)
    args = [a for a in typing.get_args(field_type) if a is not type(None)]
    return args[0] if args else field_type


def _parse_bool(text):
    lowered = text.lower()
    if lowered in ("true", "1", "yes"):
        return True
    if lowered in ("false", "0", "no"):
        return False
    raise argparse.ArgumentTypeError(f"expected True or False, got {text!r}")


def cli(cls, args=None, description=None):
    hints = typing.get_type_hints(cls)
    parser = argparse.ArgumentParser(description=description or cls.__doc__)
    for field in dataclasses.fields(cls):
        kebab = field.name.replace("_", "-")
        names = [f"--{kebab}"] + ([f"--{field.name}"] if kebab != field.name else [])
        value_type = _value_type(hints.get(field.name, field.type))
        default = field.default if field.default is not dataclasses.MISSING else None
        if value_type is bool:
            # `--flag` alone sets True, `--flag False` is tyro's explicit form, `--no-flag` sets False.
            parser.add_argument(*names, dest=field.name, nargs="?", const=True, type=_parse_bool, default=default)
            parser.add_argument(f"--no-{kebab}", dest=field.name, action="store_false")
        else:
            parser.add_argument(*names, dest=field.name, type=value_type, default=default)
    return cls(**vars(parser.parse_args(args)))
