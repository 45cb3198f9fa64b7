"""NCCL's message sizes from NVTX extended payloads (nvtx_payload.py) and nccl_sum's bytes and bandwidths.

The real two-H200 capture (tests/data/h200x2, NCCL 2.28, nsys 2025.3.1 `export --include-blobs=true`)
holds NCCL's payloads: nccl_sum must give the bytes the workload moved, and say why where a copy without
the payload bytes is given. To check the decoding further, copies of it get binaryData written here in the framing Nsight Systems
2025.3.1 exports (seen on a real one-rank NCCL capture on the H100: a 64-bit payload count, then schema
id, size and offset per payload, then the bytes; REAL_BLOBS below are three of its blobs verbatim) around
NCCL's structs with the sizes the captured workload used (benchmarks/nccl_allreduce.py: 16 MiB
all-reduces, 4 MiB per rank all-gathers).
"""

from __future__ import annotations

import csv
import io
import shutil
import sqlite3
import struct

import pytest

from conftest import REPO

from aiperf_lab.metrics.cli import main
from aiperf_lab.metrics.nsys.db import NsysDatabase
from aiperf_lab.metrics.nsys.nvtx_payload import Payload, PayloadDecoder

DATA = REPO / "tests" / "data" / "h200x2"
MiB = 1 << 20
COMM = 0x5EED_CAFE_0000_0042
# NCCL's structs (NcclNvtxParams*) as the C compiler lays them out on x86-64, by the range that carries each.
LAYOUTS = {
    "ncclCommInitRankConfig": (16777227, struct.Struct("<Qiii4x")),   # comm, nranks, rank, cudaDev
    "ncclAllReduce": (16777221, struct.Struct("<QQi4x")),             # comm, bytes, op
    "ncclAllGather": (16777220, struct.Struct("<QQ")),                # comm, bytes
    "ncclCommFinalize": (16777230, struct.Struct("<Q")),              # comm
    "ncclCommDestroy": (16777218, struct.Struct("<Qiii4x")),
}
# binaryData of three NCCL ranges of a one-rank capture of benchmarks/nccl_allreduce.py on the H100
# (nsys 2025.3.1 `export --include-blobs=true`, NCCL 2.28.9), in hex as sqlite3's hex() printed them.
REAL_BLOBS = {
    "ncclAllReduce": "01000000000000000500000100000000180000000000000020000000000000007991A4029A27D555"
                     "000000010000000000000000FE7F0000",
    "ncclAllGather": "01000000000000000400000100000000100000000000000020000000000000007991A4029A27D555"
                     "0000400000000000",
    "ncclCommInitRankConfig": "01000000000000000B00000100000000180000000000000020000000000000007991A4029A27D555"
                              "01000000000000000000000000000000",
}


def _frame(domain: int, schema: int, payload: bytes) -> bytes:
    """One payload as nsys exports it: count 1; schema id, size, offset 32; the payload."""
    return struct.pack("<QQQQ", 1, schema, len(payload), 32) + payload


def _with_blobs(tmp_path, rank: int, *, nranks: int = 2, as_hex: bool = False, frame=_frame) -> str:
    target = tmp_path / f"rank{rank}.sqlite"
    shutil.copy(DATA / f"nccl_rank{rank}.sqlite", target)
    con = sqlite3.connect(target)
    rows = con.execute("SELECT n.rowid, n.domainId, s.value FROM NVTX_EVENTS AS n JOIN StringIds AS s "
                       "ON s.id = n.textId WHERE n.eventType = 59 AND s.value LIKE 'nccl%'").fetchall()
    for rowid, domain, name in rows:
        schema, layout = LAYOUTS[name]
        values = {"ncclCommInitRankConfig": (COMM, nranks, rank, rank), "ncclCommDestroy": (COMM, nranks, rank, rank),
                  "ncclAllReduce": (COMM, 16 * MiB, 0), "ncclAllGather": (COMM, 4 * MiB),
                  "ncclCommFinalize": (COMM,)}[name]
        blob = frame(domain, schema, layout.pack(*values))
        con.execute("UPDATE NVTX_EVENTS SET binaryData = ? WHERE rowid = ?", (blob.hex() if as_hex else blob, rowid))
    con.commit()
    con.close()
    return str(target)


def _nccl_sum(capsys, files):
    code = main(files + ["--report", "nccl_sum", "--format", "csv"])
    out = capsys.readouterr().out
    return code, list(csv.DictReader(io.StringIO(out)))


def _notes(capsys, files) -> str:
    assert main(files + ["--report", "nccl_sum", "--format", "json"]) == 0
    return capsys.readouterr().out


def test_the_real_capture_gives_the_bytes_the_workload_moved(capsys):
    files = [str(DATA / "nccl_rank0.sqlite"), str(DATA / "nccl_rank1.sqlite")]
    code, rows = _nccl_sum(capsys, files)
    assert code == 0
    assert {(r["Rank"], r["Collective"], r["Count"], r["Bytes"], r["Ranks"]) for r in rows} == {
        ("0", "AllReduce", "23", str(23 * 16 * MiB), "2"), ("1", "AllReduce", "23", str(23 * 16 * MiB), "2"),
        ("0", "AllGather", "5", str(5 * 4 * MiB * 2), "2"), ("1", "AllGather", "5", str(5 * 4 * MiB * 2), "2")}
    assert "Bytes unknown" not in _notes(capsys, files)


def test_an_export_without_the_payload_bytes_says_why(tmp_path, capsys):
    files = []
    for rank in range(2):
        path = tmp_path / f"nccl_rank{rank}.sqlite"
        shutil.copy(DATA / path.name, path)
        with sqlite3.connect(path) as con:
            con.execute("UPDATE NVTX_EVENTS SET binaryData = NULL")
        files.append(str(path))
    code, rows = _nccl_sum(capsys, files)
    assert code == 0 and len(rows) == 4
    assert {r["Bytes"] for r in rows} == {"unknown"} and {r["BusBW (GB/s)"] for r in rows} == {""}
    notes = _notes(capsys, files)
    assert "nccl_rank0.sqlite has NCCL's payload schemas but no payload data" in notes
    assert "only with --include-blobs=true" in notes and "nccl_rank1.sqlite" in notes


@pytest.mark.parametrize("as_hex", [False, True])
def test_payloads_give_each_collectives_bytes_and_nccl_tests_bandwidths(tmp_path, capsys, as_hex):
    files = [_with_blobs(tmp_path, r, as_hex=as_hex) for r in range(2)]
    code, rows = _nccl_sum(capsys, files)
    assert code == 0
    by_key = {(r["Rank"], r["Collective"]): r for r in rows}
    assert {k: (r["Count"], r["Bytes"], r["Ranks"]) for k, r in by_key.items()} == {
        ("0", "AllReduce"): ("23", str(23 * 16 * MiB), "2"), ("1", "AllReduce"): ("23", str(23 * 16 * MiB), "2"),
        ("0", "AllGather"): ("5", str(5 * 8 * MiB), "2"), ("1", "AllGather"): ("5", str(5 * 8 * MiB), "2")}
    for (rank, collective), row in by_key.items():
        algbw = int(row["Bytes"]) / int(row["Time (ns)"])          # bytes per ns = GB/s
        factor = {"AllReduce": 2 * (2 - 1) / 2, "AllGather": (2 - 1) / 2}[collective]
        assert float(row["AlgBW (GB/s)"]) == pytest.approx(algbw, abs=5e-4)
        assert float(row["BusBW (GB/s)"]) == pytest.approx(algbw * factor, abs=5e-4)
    assert "Bytes unknown" not in _notes(capsys, files)


def test_the_communicators_size_comes_from_its_init_payload(tmp_path, capsys):
    """One rank's file of an 8-rank job: n is 8 (ncclCommInitRankConfig's payload), not the 1 file given."""
    code, rows = _nccl_sum(capsys, [_with_blobs(tmp_path, 0, nranks=8)])
    assert code == 0
    gather = next(r for r in rows if r["Collective"] == "AllGather")
    reduce = next(r for r in rows if r["Collective"] == "AllReduce")
    assert gather["Ranks"] == "8" and gather["Bytes"] == str(5 * 4 * MiB * 8)
    for row, factor in ((gather, 7 / 8), (reduce, 2 * 7 / 8)):
        algbw = int(row["Bytes"]) / int(row["Time (ns)"])
        assert float(row["BusBW (GB/s)"]) == pytest.approx(algbw * factor, abs=5e-4)


def test_a_blob_whose_framing_does_not_check_out_is_not_guessed(tmp_path, capsys):
    def bad_total(domain, schema, payload):  # the offset puts the payload past the blob's end
        return struct.pack("<QQQQ", 1, schema, len(payload), 40) + payload

    files = [_with_blobs(tmp_path, 0, frame=bad_total)]
    code, rows = _nccl_sum(capsys, files)
    assert code == 0 and {r["Bytes"] for r in rows} == {"unknown"} and {r["AlgBW (GB/s)"] for r in rows} == {""}
    assert "Bytes unknown for 28 calls: payload framing not recognized" in _notes(capsys, files)


def test_decoder_reads_enums_by_name_and_refuses_pointer_entries(tmp_path):
    path = _with_blobs(tmp_path, 0)
    db = NsysDatabase(path)
    decoder = PayloadDecoder(db)
    blob = _frame(1, 16777221, LAYOUTS["ncclAllReduce"][1].pack(COMM, 3 * MiB, 2))
    payload = decoder.decode(1, blob)
    assert isinstance(payload, Payload)
    assert payload.values == {"NCCL communicator ID": COMM, "Message size [bytes]": 3 * MiB,
                              "Reduction operation": "Max"}
    # The same bytes in another domain name no schema registered there.
    assert decoder.decode(2, blob).startswith("payload framing not recognized")
    db.close()
    con = sqlite3.connect(path)
    con.execute("UPDATE NVTX_PAYLOAD_SCHEMA_ENTRIES SET flags = 2 WHERE schemaId = 16777221 AND idx = 1")
    con.commit()
    con.close()
    payload = PayloadDecoder(NsysDatabase(path)).decode(1, blob)
    assert "Message size [bytes]" not in payload.values and "pointer" in payload.unread["Message size [bytes]"]


def test_a_json_payload_is_read_too(tmp_path, capsys):
    path = tmp_path / "rank0.sqlite"
    shutil.copy(DATA / "nccl_rank0.sqlite", path)
    con = sqlite3.connect(path)
    con.execute("UPDATE NVTX_EVENTS SET binaryData = NULL")
    con.execute("UPDATE NVTX_EVENTS SET jsonText = '{\"Message size [bytes]\": 1024}' WHERE eventType = 59 "
                "AND textId IN (SELECT id FROM StringIds WHERE value IN ('ncclAllReduce', 'ncclAllGather'))")
    con.commit()
    con.close()
    code, rows = _nccl_sum(capsys, [str(path)])
    assert code == 0 and {r["Collective"]: r["Bytes"] for r in rows} == {"AllReduce": str(23 * 1024),
                                                                         "AllGather": str(5 * 1024)}  # n = 1 file


def test_a_schema_that_holds_itself_or_points_outside_is_refused_not_followed(tmp_path):
    path = _with_blobs(tmp_path, 0)
    con = sqlite3.connect(path)
    # entry 0 of the all-reduce schema is now of the all-reduce schema's own type; entry 1 at offset -8
    con.execute("UPDATE NVTX_PAYLOAD_SCHEMA_ENTRIES SET type = 16777221 WHERE schemaId = 16777221 AND idx = 0")
    con.execute("UPDATE NVTX_PAYLOAD_SCHEMA_ENTRIES SET offset = -8 WHERE schemaId = 16777221 AND idx = 1")
    con.commit()
    con.close()
    blob = _frame(1, 16777221, LAYOUTS["ncclAllReduce"][1].pack(COMM, 3 * MiB, 0))
    payload = PayloadDecoder(NsysDatabase(path)).decode(1, blob)
    assert "nests deeper than 8 levels" in str(payload.values["NCCL communicator ID"])
    assert "Message size [bytes]" not in payload.values and "offset -8" in payload.unread["Message size [bytes]"]
    assert payload.values["Reduction operation"] == "Sum"


def test_the_gpu_scripts_check_of_the_bytes_against_the_workload(tmp_path, capsys):
    """benchmarks/nccl_payload_dump.py (run by verify_issue17.sh part 2) says 'yes' only for the bytes the
    workload moved."""
    import subprocess
    import sys

    files = [str(DATA / "nccl_rank0.sqlite"), str(DATA / "nccl_rank1.sqlite")]  # the real capture
    (tmp_path / "nccl_sum.csv").write_text(subprocess.run(
        [sys.executable, "-m", "aiperf_lab.metrics.cli", *files, "--report", "nccl_sum", "--format", "csv"],
        capture_output=True, text=True, check=True).stdout)
    dump = [sys.executable, str(REPO / "benchmarks" / "nccl_payload_dump.py"), files[0], "--expect-csv",
            str(tmp_path / "nccl_sum.csv")]
    out = subprocess.run(dump, capture_output=True, text=True, check=True).stdout
    assert "with binaryData: 31" in out and "'Message size [bytes]': 16777216" in out
    assert out.rstrip().endswith("bytes as the workload moved them: yes")
    files[0] = str(tmp_path / "nccl_rank0.sqlite")  # the capture exported without --include-blobs
    shutil.copy(DATA / "nccl_rank0.sqlite", files[0])
    with sqlite3.connect(files[0]) as con:
        con.execute("UPDATE NVTX_EVENTS SET binaryData = NULL")
    dump[2] = files[0]
    (tmp_path / "nccl_sum.csv").write_text(subprocess.run(
        [sys.executable, "-m", "aiperf_lab.metrics.cli", *files, "--report", "nccl_sum", "--format", "csv"],
        capture_output=True, text=True, check=True).stdout)
    out = subprocess.run(dump, capture_output=True, text=True, check=True).stdout
    assert "with binaryData: 0" in out and out.rstrip().endswith("bytes as the workload moved them: NO")


def test_real_blobs_from_an_h100_capture_decode_to_the_sizes_the_workload_moved():
    decoder = PayloadDecoder(NsysDatabase(DATA / "nccl_rank0.sqlite"))  # the same NCCL 2.28 schemas
    values = {name: decoder.decode(1, bytes.fromhex(blob)) for name, blob in REAL_BLOBS.items()}
    assert all(isinstance(v, Payload) for v in values.values()), values
    assert values["ncclAllReduce"].values == {"NCCL communicator ID": 0x55D5279A02A49179,
                                              "Message size [bytes]": 16 * MiB, "Reduction operation": "Sum"}
    assert values["ncclAllGather"].values == {"NCCL communicator ID": 0x55D5279A02A49179,
                                              "Message size [bytes]": 4 * MiB}
    assert values["ncclCommInitRankConfig"].values == {"NCCL communicator ID": 0x55D5279A02A49179,
                                                       "No. of ranks": 1, "Rank": 0, "CUDA device": 0}
    # the same bytes under the other framing guessed before (a 32-bit domain first) would not check out
    wrong = bytes.fromhex(REAL_BLOBS["ncclAllReduce"])
    assert isinstance(decoder.decode(1, wrong[:40]), str)          # cut inside the payload
    assert isinstance(decoder.decode(2, wrong), str)               # a domain that registered no schema


def test_two_payloads_in_one_event_are_merged_and_a_clash_is_refused():
    decoder = PayloadDecoder(NsysDatabase(DATA / "nccl_rank0.sqlite"))
    gather = struct.pack("<QQ", 7, 4 * MiB)
    finalize = struct.pack("<Q", 7)
    header = struct.pack("<Q", 2) + struct.pack("<QQQ", 16777220, 16, 56) + struct.pack("<QQQ", 16777230, 8, 72)
    decoded = decoder.decode(1, header + gather + finalize)
    assert isinstance(decoded, Payload) and decoded.values == {"NCCL communicator ID": 7, "Message size [bytes]": 4 * MiB}
    clash = header + gather + struct.pack("<Q", 8)
    assert decoder.decode(1, clash) == "two payloads of one event give 'NCCL communicator ID' different values"


def test_a_schema_nesting_itself_many_times_over_is_read_within_a_bound(tmp_path, capsys):
    """12 entries of the schema's own type, 8 levels deep, would be 12**9 reads: a bound on the values read
    per event makes it one line of 'not read' in the notes, at once."""
    path = tmp_path / "rank0.sqlite"
    shutil.copy(DATA / "nccl_rank0.sqlite", path)
    with sqlite3.connect(path) as con:
        con.execute("INSERT INTO NVTX_PAYLOAD_SCHEMAS (domainId, schemaId, type, payloadSize) VALUES (1, 999, 1, 8)")
        con.executemany("INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES (domainId, schemaId, idx, type, name, offset) "
                        "VALUES (1, 999, ?, 999, ?, 0)", [(i, f"e{i}") for i in range(12)])
        con.execute("UPDATE NVTX_EVENTS SET binaryData = ? WHERE eventType = 59 AND textId IN "
                    "(SELECT id FROM StringIds WHERE value = 'ncclAllReduce')",
                    (struct.pack("<QQQQ", 1, 999, 8, 32) + bytes(8),))
    decoded = PayloadDecoder(NsysDatabase(path)).decode(1, struct.pack("<QQQQ", 1, 999, 8, 32) + bytes(8))
    assert decoded == "payload schema 999 holds more than 512 values (not read)"
    code, rows = _nccl_sum(capsys, [str(path)])
    assert code == 0 and {r["Collective"]: r["Bytes"] for r in rows}["AllReduce"] == "unknown"


@pytest.mark.parametrize("size, ranks", [("1" + "0" * 4000, 2), ("-5", 2), ("true", 2), ("16777216", -3),
                                         ("16777216", 0)])
def test_payload_values_that_cannot_be_real_are_not_used(tmp_path, capsys, size, ranks):
    path = tmp_path / "rank0.sqlite"
    shutil.copy(DATA / "nccl_rank0.sqlite", path)
    with sqlite3.connect(path) as con:
        con.execute("UPDATE NVTX_EVENTS SET binaryData = NULL")
        con.execute(f"UPDATE NVTX_EVENTS SET jsonText = '{{\"Message size [bytes]\": {size}, "
                    f"\"NCCL communicator ID\": 7, \"No. of ranks\": {ranks}}}' WHERE eventType = 59 AND textId IN "
                    "(SELECT id FROM StringIds WHERE value IN ('ncclAllReduce', 'ncclCommInitRankConfig'))")
    code, rows = _nccl_sum(capsys, [str(path)])
    assert code == 0
    reduce = next(r for r in rows if r["Collective"] == "AllReduce")
    # a communicator size of -3 or 0 is not used: the number of files given (1) is
    assert reduce["Ranks"] == (str(ranks) if ranks >= 1 else "1")
    assert reduce["Bytes"] == ("unknown" if size != "16777216" else str(23 * 16 * MiB))


def test_ranges_without_a_thread_are_left_out_and_thousands_of_processes_refused(tmp_path, capsys):
    path = tmp_path / "rank0.sqlite"
    shutil.copy(DATA / "nccl_rank0.sqlite", path)
    with sqlite3.connect(path) as con:
        con.execute("UPDATE NVTX_EVENTS SET globalTid = NULL WHERE rowid % 2 = 0")
    files = [str(path), str(DATA / "nccl_rank1.sqlite")]
    for report in ("nccl_sum", "rank_spread"):
        assert main(files + ["--report", report, "--format", "csv"]) == 0, report
        capsys.readouterr()
    many = tmp_path / "many.sqlite"
    shutil.copy(DATA / "nccl_rank0.sqlite", many)
    with sqlite3.connect(many) as con:
        columns = [c for (_i, c, *_rest) in con.execute("PRAGMA table_info(CUPTI_ACTIVITY_KIND_KERNEL)")]
        copied = ", ".join("(1000 + n.value) << 24" if c == "globalPid" else f"k.[{c}]" for c in columns)
        con.execute(f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT {copied} FROM CUPTI_ACTIVITY_KIND_KERNEL AS k, "
                    "(WITH RECURSIVE c(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM c WHERE value < 300) "
                    "SELECT value FROM c) AS n WHERE k.rowid = 1")
    assert main([str(many), "--report", "nccl_sum"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == ("aiperf-stats: many.sqlite: kernels from more than 256 processes; the multi-rank "
                           "reports read at most that many ranks from one export")
