# Decodes an offline run written with WANDB_MODE=offline (envs/run/wandb_offline.ts) with the wandb package's own
# generated protobuf classes, so that the field numbers are checked against wandb's wandb_internal.proto rather
# than against our reading of it, and prints every record as text.
#
#   python3 -m venv /tmp/wb && /tmp/wb/bin/pip install --no-deps wandb && /tmp/wb/bin/pip install protobuf
#   /tmp/wb/bin/python benchmark/wandb_offline_check.py wandb/latest-run
#
# Only wandb's proto modules are loaded (a stand-in `wandb` package object keeps wandb/__init__.py, and the
# dependencies it imports, out). The LevelDB log framing is read here as wandb's datastore documents it: the 7-byte
# ":W&B" header, 32 KiB blocks, records of crc32 (of type byte and data), length, type.
import importlib
import importlib.util
import pathlib
import struct
import sys
import types
import zlib

import google.protobuf.text_format as text_format


def wandb_record_class():
    spec = importlib.util.find_spec("wandb")
    root = pathlib.Path(spec.submodule_search_locations[0])
    for name, sub in (("wandb", root), ("wandb.proto", root / "proto")):
        module = types.ModuleType(name)
        module.__path__ = [str(sub)]
        sys.modules[name] = module
    for version in ("v7", "v6", "v5"):
        if (root / "proto" / version).exists():
            return importlib.import_module(f"wandb.proto.{version}.wandb_internal_pb2").Record
    return importlib.import_module("wandb.proto.wandb_internal_pb2").Record


def read_log(path):
    data = pathlib.Path(path).read_bytes()
    ident, magic, version = struct.unpack("<4sHB", data[:7])
    assert (ident, magic, version) == (b":W&B", 0xBEE1, 0), (ident, magic, version)
    at, pending = 7, b""
    while at < len(data):
        if 32768 - at % 32768 < 7:
            at += 32768 - at % 32768
            continue
        checksum, length, kind = struct.unpack("<IHB", data[at : at + 7])
        chunk = data[at + 7 : at + 7 + length]
        assert checksum == zlib.crc32(chunk, zlib.crc32(bytes([kind]))) & 0xFFFFFFFF, f"CRC at byte {at}"
        pending += chunk
        if kind in (1, 4):
            yield pending
            pending = b""
        at += 7 + length


def main():
    run_dir = pathlib.Path(sys.argv[1]).resolve()
    Record = wandb_record_class()
    (store,) = run_dir.glob("run-*.wandb")
    for raw in read_log(store):
        record = Record()
        record.ParseFromString(raw)
        # A field number wandb does not know is kept as an unknown field: dropping those must lose nothing.
        record.DiscardUnknownFields()
        assert len(record.SerializeToString()) == len(raw), f"record {record.num}: fields wandb does not know"
        print(f"--- record {record.num}: {record.WhichOneof('record_type')}")
        print(text_format.MessageToString(record, as_one_line=True)[:400])
    files = sorted(str(p.relative_to(run_dir)) for p in run_dir.rglob("*") if p.is_file())
    print("files:", ", ".join(files))


if __name__ == "__main__":
    main()
