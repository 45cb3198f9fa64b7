"""What nccl_sum shares between the nsys and PyTorch readers: nccl-tests' sizes and bandwidth factors, and
the table's columns.

Bandwidths as nccl-tests defines them (its doc/PERFORMANCE.md): algbw = S / t, busbw = algbw x factor,
factor 2(n-1)/n for all-reduce, (n-1)/n for all-gather, reduce-scatter and all-to-all, 1 for broadcast,
reduce and send/recv; n is the number of ranks. S is the collective's size as nccl-tests counts it: the
message for all-reduce, broadcast and reduce, the whole gathered (or scattered) buffer for all-gather and
reduce-scatter, the whole send buffer for all-to-all.
"""

from __future__ import annotations

COLUMNS = ["Rank", "Collective", "Count", "Bytes", "Time (ns)", "Avg (us)", "AlgBW (GB/s)", "BusBW (GB/s)", "Ranks"]
NAMES = {"allreduce": "AllReduce", "allgather": "AllGather", "reducescatter": "ReduceScatter",
         "broadcast": "Broadcast", "reduce": "Reduce", "sendrecv": "SendRecv", "send": "SendRecv",
         "recv": "SendRecv", "alltoall": "AllToAll"}


def collective_name(text: str) -> str | None:
    """NCCL's name for a collective however a tool spells it (allreduce, all_reduce, _allgather_base,
    all_gather_into_tensor, AllReduce); None when it is none of them."""
    token = text.lower().replace("_", "").replace("base", "").replace("intotensor", "").replace("coalesced", "")
    token = token.replace("tensor", "")
    if token in ("allgather", "allgatherv"):
        return "AllGather"
    if token in ("alltoallv", "alltoallsingle"):
        return "AllToAll"
    return NAMES.get(token)


def bus_factor(collective: str, n: int) -> float | None:
    """nccl-tests' bus-bandwidth factor for `collective` over n ranks; None where it has none."""
    if n < 2:
        return None
    if collective == "AllReduce":
        return 2 * (n - 1) / n
    if collective in ("AllGather", "ReduceScatter", "AllToAll"):
        return (n - 1) / n
    if collective in ("Broadcast", "Reduce", "SendRecv"):
        return 1.0
    return None


def size_multiplier(collective: str, n: int) -> int:
    """nccl-tests' size S in units of NCCL's per-rank message size (NCCL's NVTX payload)."""
    return n if collective in ("AllGather", "ReduceScatter") else 1


BANDWIDTH_NOTE = ("AlgBW = S / GPU time, BusBW = AlgBW x 2(n-1)/n (all-reduce), (n-1)/n (all-gather, "
                  "reduce-scatter, all-to-all), 1 (broadcast, reduce, send/recv), as nccl-tests defines them.")


def innermost_holders(ranges: list, calls: list[tuple[int, int]]) -> list:
    """For each (start, end) of `calls`, the innermost of one thread's nested `ranges` (tuples starting
    with start, end) that holds it, or None: one sweep in time order with a stack of the open ranges, not
    a scan of every range per call (NCCL calls and ranges both number in the 100,000s on long runs)."""
    order = sorted(range(len(calls)), key=lambda i: calls[i][0])
    ranges = sorted(ranges, key=lambda r: (r[0], -r[1]))  # an outer range before an inner one of one start
    found: list = [None] * len(calls)
    stack: list = []
    next_range = 0
    for i in order:
        start, end = calls[i]
        while next_range < len(ranges) and ranges[next_range][0] <= start:
            r = ranges[next_range]
            next_range += 1
            while stack and stack[-1][1] < r[0]:
                stack.pop()
            stack.append(r)
        while stack and stack[-1][1] < start:
            stack.pop()
        for r in reversed(stack):
            if r[1] >= end:
                found[i] = r
                break
    return found
