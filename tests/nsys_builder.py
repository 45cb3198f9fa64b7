"""Build small nsys-shaped SQLite exports by hand, for properties no real file exercises on demand."""

from __future__ import annotations

import sqlite3
from pathlib import Path

SCHEMA = """
CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, [end] INTEGER, deviceId INTEGER, contextId INTEGER,
    streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER,
    gridX INTEGER DEFAULT 1, gridY INTEGER DEFAULT 1, gridZ INTEGER DEFAULT 1, blockX INTEGER DEFAULT 128,
    blockY INTEGER DEFAULT 1, blockZ INTEGER DEFAULT 1);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, [end] INTEGER, eventClass INTEGER, globalTid INTEGER,
    correlationId INTEGER, nameId INTEGER, returnValue INTEGER);
CREATE TABLE NVTX_EVENTS(start INTEGER, [end] INTEGER, eventType INTEGER, rangeId INTEGER, category INTEGER,
    color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER,
    jsonText TEXT);
"""

PID = 4242
PROCESS = (1 << 56) | (PID << 24)  # a globalPid with the VM bits set, as real exports have


def gtid(tid: int) -> int:
    return PROCESS | tid


class ExportBuilder:
    def __init__(self, pid: int = PID, device: int = 0) -> None:
        self.process = (1 << 56) | (pid << 24)  # one process per export unless given otherwise
        self.device = device
        self.strings: dict[str, int] = {}
        self.kernels: list[tuple] = []
        self.calls: list[tuple] = []
        self.nvtx: list[tuple] = []
        self.memcpys: list[tuple] = []
        self.correlation = 0
        self.session_start_utc_ns: int | None = None   # TARGET_INFO_SESSION_START_TIME.utcEpochNs
        self.analysis_span: tuple[int, int] | None = None  # ANALYSIS_DETAILS startTime, stopTime

    def gtid(self, tid: int) -> int:
        return self.process | tid

    def string(self, value: str) -> int:
        return self.strings.setdefault(value, len(self.strings) + 1)

    def launch(self, tid: int, api_start: int, api_end: int, name: str, gpu_start: int, duration: int,
               api: str = "cudaLaunchKernel_v7000", stream: int = 7) -> None:
        self.correlation += 1
        self.calls.append((api_start, api_end, 0, self.gtid(tid), self.correlation, self.string(api), 0))
        self.kernels.append((gpu_start, gpu_start + duration, self.device, 1, stream, self.correlation, self.process,
                             self.string(name), self.string(name.split("<")[0])))

    def memcpy(self, tid: int, api_start: int, gpu_start: int, duration: int, nbytes: int = 1 << 20,
               copy_kind: int = 1, stream: int = 7) -> None:
        """A cudaMemcpyAsync and its copy (copyKind 1 = host to device)."""
        self.correlation += 1
        self.calls.append((api_start, api_start + 1000, 0, self.gtid(tid), self.correlation,
                           self.string("cudaMemcpyAsync_v3020"), 0))
        self.memcpys.append((gpu_start, gpu_start + duration, self.device, 1, stream, self.correlation, self.process,
                             nbytes, copy_kind))

    def launch_graph(self, tid: int, api_start: int, api_end: int, names: list[str], gpu_start: int,
                     duration: int) -> None:
        """One cudaGraphLaunch whose kernels, traced per node, all carry its correlation id."""
        self.correlation += 1
        self.calls.append((api_start, api_end, 0, self.gtid(tid), self.correlation,
                           self.string("cudaGraphLaunch_v10000"), 0))
        for i, name in enumerate(names):
            start = gpu_start + i * (duration + 1)
            self.kernels.append((start, start + duration, self.device, 1, 7, self.correlation, self.process,
                                 self.string(name),
                                 self.string(name)))

    def range(self, tid: int, start: int, end: int | None, text: str, *, push_pop: bool = True,
              domain: int = 0, registered: bool = False, end_tid: int | None = None,
              payload: str | None = None) -> None:
        event_type = 59 if push_pop else 60
        text_id = self.string(text) if registered else None
        self.nvtx.append((start, end, event_type, None, None, None, None if registered else text, self.gtid(tid),
                          self.gtid(end_tid) if end_tid is not None else None, text_id, domain, payload))

    def domain(self, tid: int, domain: int, name: str, start: int = -5) -> None:
        self.nvtx.append((start, None, 75, None, None, None, name, self.gtid(tid), None, None, domain, None))

    def write(self, path: Path) -> Path:
        con = sqlite3.connect(path)
        con.executescript(SCHEMA)
        con.executemany("INSERT INTO StringIds VALUES (?, ?)", [(i, v) for v, i in self.strings.items()])
        con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, [end], deviceId, contextId, streamId, "
                        "correlationId, globalPid, demangledName, shortName) VALUES (?,?,?,?,?,?,?,?,?)", self.kernels)
        con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,?,?,?,?,?)", self.calls)
        con.executemany("INSERT INTO NVTX_EVENTS VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", self.nvtx)
        if self.memcpys:
            con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INTEGER, [end] INTEGER, deviceId INTEGER, "
                        "contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, "
                        "bytes INTEGER, copyKind INTEGER)")
            con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?,?,?,?,?,?,?,?,?)", self.memcpys)
        if self.session_start_utc_ns is not None:
            con.execute("CREATE TABLE TARGET_INFO_SESSION_START_TIME(utcEpochNs INTEGER, utcTime TEXT, "
                        "localTime TEXT)")
            con.execute("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (?, '', '')", (self.session_start_utc_ns,))
        if self.analysis_span is not None:
            con.execute("CREATE TABLE ANALYSIS_DETAILS(globalVid INTEGER, duration INTEGER, startTime INTEGER, "
                        "stopTime INTEGER)")
            a, b = self.analysis_span
            con.execute("INSERT INTO ANALYSIS_DETAILS VALUES (?, ?, ?, ?)", (1 << 48, b - a, a, b))
        con.commit()
        con.close()
        return path
