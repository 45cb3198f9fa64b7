"""NVTX extended payloads (nvToolsExtPayload.h) as an nsys export holds them, decoded from the export's own
schema tables.

An application registers a schema per payload layout (NVTX_PAYLOAD_SCHEMAS: type, static size; and
NVTX_PAYLOAD_SCHEMA_ENTRIES: per entry its name, type, flags, offset) and enums (NVTX_PAYLOAD_ENUMS,
NVTX_PAYLOAD_ENUM_ENTRIES); each event's bytes are in NVTX_EVENTS.binaryData, which `nsys export` fills
only when asked (`--include-blobs=true`; without it the column is empty), or as JSON text in jsonText.
NCCL >= 2.19 describes every API call this way ("Message size [bytes]", "NCCL communicator ID",
"No. of ranks", ...).

Decoding is strict: an entry is read only where the schema says where it is and what it is (a
predefined scalar type, a registered enum, or a nested static schema); pointers, arrays, unions and
dynamic schemas are not read. A blob is accepted only when its framing names a schema registered in the
event's domain and its sizes agree with that schema (see _frame); otherwise decode() says why, and
nothing is guessed. Scalar sizes are those of a 64-bit Linux process (long and wchar_t follow the export's
platform where it says Windows).
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field

from aiperf_lab.metrics.nsys.db import NVTX, NsysDatabase

SCHEMAS, ENTRIES = "NVTX_PAYLOAD_SCHEMAS", "NVTX_PAYLOAD_SCHEMA_ENTRIES"
ENUMS, ENUM_ENTRIES = "NVTX_PAYLOAD_ENUMS", "NVTX_PAYLOAD_ENUM_ENTRIES"

# NVTX_PAYLOAD_ENTRY_TYPE_* -> struct format, for a 64-bit Linux process (LP64); `long` and `wchar_t`
# differ on Windows (LLP64) and are set from the export's platform.
_SCALARS = {
    1: "b", 2: "B", 3: "h", 4: "H", 5: "i", 6: "I", 7: "q", 8: "Q", 9: "q", 10: "Q",   # C integer types
    11: "b", 12: "B", 13: "h", 14: "H", 15: "i", 16: "I", 17: "q", 18: "Q",           # INT8 .. UINT64
    19: "f", 20: "d", 22: "Q", 23: "Q", 24: "I", 25: "B", 26: "H", 27: "I",           # FLOAT, DOUBLE, SIZE, ADDRESS, chars
    32: "B", 43: "f", 44: "d",                                                         # BYTE, FLOAT32, FLOAT64
    80: "Q", 90: "I", 91: "i", 92: "I",               # registered string handle, category, color type, color
    128: "Q",                                         # TIMESTAMP64
}
_WINDOWS = {7: "i", 8: "I", 24: "H"}
SCHEMA_TYPE_STATIC = 1
_UNREAD_FLAGS = (1 << 1) | (3 << 4)  # POINTER, any ARRAY kind: the value is not the bytes at `offset`
_COUNT = struct.Struct("<Q")           # see _frame()
_DESCRIPTOR = struct.Struct("<QQQ")   # schema id, payload size, payload offset in the blob
MAX_PAYLOADS = 64                     # payloads one event may carry (NCCL sends one)
MAX_NESTING = 8                       # a schema entry of a schema type, so deep (or a schema holding itself)
MAX_VALUES = 512                      # entries read per event, nested ones included (NCCL's have 2 to 4)
CACHED_BLOB_BYTES = 4096              # events repeat the same small blob: decoded once each


@dataclass
class Entry:
    index: int
    name: str
    type: int
    flags: int
    offset: int | None


@dataclass
class Schema:
    domain: int
    schema_id: int
    kind: int | None
    size: int | None
    entries: list[Entry] = field(default_factory=list)

    def names(self) -> list[str]:
        return [e.name for e in self.entries]


@dataclass
class Payload:
    """The values of one event's payload, by entry name (enums as their names), and its schema."""

    schema: Schema
    values: dict[str, object]
    unread: dict[str, str]  # entry name -> why it was not read


class PayloadDecoder:
    """The payload schemas and enums of one export; decode() turns one event's binaryData into values."""

    def __init__(self, db: NsysDatabase):
        self.db = db
        self.schemas: dict[tuple[int, int], Schema] = {}
        self.enums: dict[tuple[int, int], tuple[int, dict[int, str]]] = {}
        self.conflicting: set[tuple[int, int]] = set()
        self._decoded: dict[tuple[int, bytes], Payload | str] = {}
        self._budget = MAX_VALUES
        platform = (db.export_info.platform or "") if db.export_info else ""
        self.scalars = dict(_SCALARS, **(_WINDOWS if "windows" in platform.lower() else {}))
        if db.has(SCHEMAS) and db.has(ENTRIES):
            self._load_schemas()
        if db.has(ENUMS) and db.has(ENUM_ENTRIES):
            self._load_enums()

    def _load_schemas(self) -> None:
        cols = self.db.columns(SCHEMAS)
        kind = "type" if "type" in cols else "NULL"
        size = "payloadSize" if "payloadSize" in cols else "NULL"
        for domain, sid, skind, ssize in self.db.query(f"SELECT domainId, schemaId, [{kind}], [{size}] FROM {SCHEMAS}"
                                                      if kind != "NULL" else
                                                      f"SELECT domainId, schemaId, NULL, NULL FROM {SCHEMAS}"):
            key = (_int(domain), _int(sid))
            schema = Schema(key[0], key[1], _int_or_none(skind), _int_or_none(ssize))
            previous = self.schemas.get(key)
            if previous is not None and (previous.kind, previous.size) != (schema.kind, schema.size):
                self.conflicting.add(key)
            self.schemas.setdefault(key, schema)
        seen: dict[tuple[int, int], dict[int, tuple]] = {}
        for domain, sid, idx, flags, etype, name, offset in self.db.query(
                f"SELECT domainId, schemaId, idx, flags, type, name, offset FROM {ENTRIES} ORDER BY domainId, schemaId, idx"):
            key = (_int(domain), _int(sid))
            row = (_int(flags), _int(etype), name if isinstance(name, str) else f"entry {idx}", _int_or_none(offset))
            entries = seen.setdefault(key, {})
            if _int(idx) in entries:
                if entries[_int(idx)] != row:
                    self.conflicting.add(key)  # two processes registered different layouts under one id
                continue
            entries[_int(idx)] = row
        for key, entries in seen.items():
            schema = self.schemas.setdefault(key, Schema(key[0], key[1], None, None))
            schema.entries = [Entry(i, name, etype, flags, offset) for i, (flags, etype, name, offset)
                              in sorted(entries.items())]

    def _load_enums(self) -> None:
        sizes = {(_int(d), _int(s)): _int_or_none(size) for d, s, size in
                 self.db.query(f"SELECT domainId, schemaId, size FROM {ENUMS}")}
        names: dict[tuple[int, int], dict[int, str]] = {}
        for domain, sid, name, value in self.db.query(f"SELECT domainId, schemaId, name, value FROM {ENUM_ENTRIES}"):
            # nsys writes a value of 0 as NULL (as it does the first entry's offset)
            names.setdefault((_int(domain), _int(sid)), {})[_int(value)] = name if isinstance(name, str) else str(value)
        for key, size in sizes.items():
            self.enums[key] = (size or 0, names.get(key, {}))

    # --- one event ---------------------------------------------------------------------------------

    def decode(self, domain: int, blob: object) -> Payload | str:
        """The payload of one event of `domain`, or one sentence saying why it cannot be read. An event
        may carry several payloads; their values are merged by entry name (a name given two different
        values is refused)."""
        data = _bytes(blob)
        if data is None:
            return "binaryData is neither bytes nor hex text"
        key = (domain, data)
        if key in self._decoded:
            return self._decoded[key]
        self._budget = MAX_VALUES
        decoded = self._decode(domain, data)
        if len(data) <= CACHED_BLOB_BYTES:
            self._decoded[key] = decoded
        return decoded

    def _decode(self, domain: int, data: bytes) -> Payload | str:
        framed = self._frame(domain, data)
        if isinstance(framed, str):
            return framed
        merged: Payload | None = None
        for schema, payload in framed:
            decoded = self._values(schema, payload)
            if isinstance(decoded, str):
                return decoded
            if merged is None:
                merged = decoded
                continue
            for name, value in decoded.values.items():
                if merged.values.setdefault(name, value) != value:
                    return f"two payloads of one event give '{name}' different values"
            merged.unread.update(decoded.unread)
        assert merged is not None  # _frame returns at least one payload
        return merged

    def _frame(self, domain: int, data: bytes) -> list[tuple[Schema, bytes]] | str:
        """The payloads inside a binaryData blob, as Nsight Systems 2025.3 exports it (seen on real NCCL
        captures, H100 and H200): a 64-bit count of payloads, then per payload three 64-bit words (its
        schema id, its size, and its offset from the blob's start; nvtxPayloadData_t with the pointer made
        an offset), then the payloads' bytes. The blob is accepted only when every descriptor names a
        schema registered in this domain whose static size (where given) is the payload's size, and every
        payload lies inside the blob after the descriptors; any other blob is refused with its first bytes
        shown, so a different layout shows up as "not recognized", never as wrong numbers."""
        refused = (f"payload framing not recognized (e.g. a {len(data)}-byte binaryData starting "
                   f"{data[:32].hex()})")
        if len(data) < _COUNT.size:
            return refused
        (count,) = _COUNT.unpack_from(data)
        header = _COUNT.size + count * _DESCRIPTOR.size
        if not 1 <= count <= MAX_PAYLOADS or header > len(data):
            return refused
        payloads = []
        for index in range(count):
            sid, size, offset = _DESCRIPTOR.unpack_from(data, _COUNT.size + index * _DESCRIPTOR.size)
            schema = self.schemas.get((domain, sid))
            if schema is None or offset < header or offset + size > len(data) \
                    or (schema.size is not None and schema.size != size):
                return refused
            if (domain, sid) in self.conflicting:
                return f"payload schema {sid} was registered with two different layouts"
            payloads.append((schema, data[offset:offset + size]))
        return payloads

    def _values(self, schema: Schema, payload: bytes, depth: int = 0) -> Payload | str:
        if depth > MAX_NESTING:
            return f"payload schema {schema.schema_id} nests deeper than {MAX_NESTING} levels"
        if schema.kind not in (None, SCHEMA_TYPE_STATIC):
            return f"payload schema {schema.schema_id} is of type {schema.kind} (only static schemas are read)"
        values: dict[str, object] = {}
        unread: dict[str, str] = {}
        position = 0
        for entry in schema.entries:
            self._budget -= 1
            if self._budget < 0:
                return f"payload schema {schema.schema_id} holds more than {MAX_VALUES} values (not read)"
            width, read = self._reader(schema.domain, entry, depth)
            if width is None:
                unread[entry.name] = read
                position = None  # later implicit offsets cannot be worked out
                continue
            offset = entry.offset
            if offset is None:  # nsys writes 0 as NULL; a later entry with none follows by natural alignment
                if entry.index == 0:
                    offset = 0
                elif position is None:
                    unread[entry.name] = "no offset, and an earlier entry's size is unknown"
                    continue
                else:
                    offset = -(-position // min(width, 8)) * min(width, 8)
            if offset < 0 or offset + width > len(payload):
                unread[entry.name] = f"offset {offset} + {width} bytes is past the {len(payload)}-byte payload"
                continue
            values[entry.name] = read(payload[offset:offset + width])
            position = offset + width
        return Payload(schema, values, unread)

    def _reader(self, domain: int, entry: Entry, depth: int):
        """(byte width, bytes -> value) of an entry, or (None, why not)."""
        if entry.flags & _UNREAD_FLAGS:
            return None, f"flags {entry.flags:#x} (pointer or array) are not read"
        fmt = self.scalars.get(entry.type)
        if fmt is not None:
            unpack = struct.Struct("<" + fmt).unpack
            return struct.calcsize(fmt), lambda raw: unpack(raw)[0]
        enum = self.enums.get((domain, entry.type))
        if enum is not None and enum[0] in (1, 2, 4, 8):
            size, names = enum
            return size, lambda raw: names.get(int.from_bytes(raw, "little"), int.from_bytes(raw, "little"))
        nested = self.schemas.get((domain, entry.type))
        if nested is not None and nested.kind in (None, SCHEMA_TYPE_STATIC) and nested.size:
            def read_nested(raw: bytes, nested: Schema = nested) -> object:
                inner = self._values(nested, raw, depth + 1)
                return inner.values if isinstance(inner, Payload) else inner
            return nested.size, read_nested
        return None, f"entry type {entry.type} is not a scalar, enum or static schema this export registers"


def json_values(text: object) -> dict[str, object] | None:
    """A payload exported as JSON text (jsonText): its top-level object, else None."""
    if not isinstance(text, str):
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def event_payloads(db: NsysDatabase, rowids: list[int]) -> dict[int, tuple[int, object, object]]:
    """(domainId, binaryData, jsonText) of the NVTX events with these rowids that carry either."""
    blob = db.column_or(NVTX, "binaryData")
    text = db.column_or(NVTX, "jsonText")
    domain = db.column_or(NVTX, "domainId", default="0")
    if (blob == "NULL" and text == "NULL") or not rowids:
        return {}
    out = {}
    for start in range(0, len(rowids), 900):
        chunk = rowids[start:start + 900]
        marks = ",".join("?" * len(chunk))
        for rowid, dom, data, js in db.query(
                f"SELECT rowid, {domain}, {blob}, {text} FROM {NVTX} WHERE rowid IN ({marks}) "
                f"AND ({blob} IS NOT NULL OR {text} IS NOT NULL)", tuple(chunk)):
            out[rowid] = (_int(dom), data, js)
    return out


def _bytes(value: object) -> bytes | None:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, str):
        text = value.strip()
        try:
            return bytes.fromhex(text[2:] if text[:2].lower() == "0x" else text)
        except ValueError:
            return None
    return None


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
