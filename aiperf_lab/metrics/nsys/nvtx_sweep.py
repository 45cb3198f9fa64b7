"""nvtx_kern_sum's attribution for one thread whose launch calls run one after another, in C-level passes.

The ranges' call intervals [lo, hi) (indexes into the thread's calls) cut the calls into segments over
which the set of open ranges does not change. Each segment's open ranges are counted per range key and
the counts packed into one integer (key k's count in its own bits): a running sum over the ranges' opens
(+) and closes (-), sorted by position. Segments with the same code hold kernels filed under the same
keyset, so each keyset's kernels are its segments' slices put together and sorted once, no Python step
per kernel or per range. Crossing ranges need nothing else: counts add up whatever the nesting.

NVTX Inst (the ranges of a key that hold at least one kernel of a name) comes from running counts per
kernel name, packed the same way: a range holds a name where the name's count differs between its two ends.

Where the packed integers would be wide (many range keys or kernel names on one thread) these return
None and the caller keeps its per-range rule.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from itertools import accumulate, chain, compress, islice, repeat
from operator import add, and_, getitem, lshift, ne, neg, or_, rshift, sub

# Widest packed integer either code may use: wider ones cost more per step than the per-range rule saves.
MAX_CODE_BITS = 512


def segment_codes(los: list[int], his: list[int], key_numbers: list[int],
                  keys: int) -> tuple[list[int], list[int], int] | None:
    """(edges, codes, bits): the call positions where a range opens or closes, ascending and distinct, and
    after each the open ranges' count per key (key k's in bits [k * bits, (k + 1) * bits)), valid up to the
    next edge. Before the first edge and from the last one on, no range is open. None where too wide."""
    bits = len(los).bit_length()  # a count never passes the number of ranges: no carry between keys
    if bits * keys > MAX_CODE_BITS:
        return None
    kind_bits = (2 * keys - 1).bit_length()  # event kind in the low bits: k opens key k, keys + k closes it
    weights = [1 << (bits * k) for k in range(keys)]
    weights += list(map(neg, weights))
    events = list(map(or_, map(lshift, los, repeat(kind_bits)), key_numbers))
    events += map(or_, map(lshift, his, repeat(kind_bits)), map(add, key_numbers, repeat(keys)))
    events.sort()  # by position; at one position opens before closes (counts never go below zero)
    running = list(accumulate(map(weights.__getitem__, map(and_, events, repeat((1 << kind_bits) - 1)))))
    positions = list(map(rshift, events, repeat(kind_bits)))
    last = list(compress(range(len(positions)), chain(map(ne, positions, islice(positions, 1, None)), (True,))))
    return list(map(positions.__getitem__, last)), list(map(running.__getitem__, last)), bits


def keyset_of(code: int, bits: int, distinct_keys: list) -> tuple:
    """The keys a code counts, each as often as it is open, in key order."""
    mask = (1 << bits) - 1
    return tuple(chain.from_iterable(repeat(key, (code >> (bits * k)) & mask) for k, key in enumerate(distinct_keys)))


def kernels_by_code(edges: list[int], codes: list[int], values: list[int]) -> dict[int, list[int]]:
    """Per code, the values (one per call) of every segment with that code, in call order; code 0 (no range
    open) includes the calls before the first edge and after the last."""
    segments = len(edges) - 1
    distinct = list(dict.fromkeys(islice(codes, segments)))
    found: dict[int, list[int]] = {}
    if len(distinct) == 1:
        found[distinct[0]] = values[edges[0]:edges[-1]]
    elif distinct:
        number = {code: i for i, code in enumerate(distinct)}
        numbers = list(map(number.__getitem__, islice(codes, segments)))
        order = sorted(range(segments), key=numbers.__getitem__)  # stable: call order within each code
        sorted_numbers = list(map(numbers.__getitem__, order))
        starts = list(map(edges.__getitem__, order))
        ends = list(map(edges.__getitem__, map(add, order, repeat(1))))
        lo = 0
        while lo < segments:
            hi = bisect_right(sorted_numbers, sorted_numbers[lo], lo)
            found[distinct[sorted_numbers[lo]]] = list(chain.from_iterable(
                map(getitem, repeat(values), map(slice, starts[lo:hi], ends[lo:hi]))))
            lo = hi
    outside = values[:edges[0]] if edges else list(values)
    if edges:
        outside += values[edges[-1]:]
    if outside:
        found[0] = found.get(0, []) + outside
    return found


def split_sorted(packed: list[int], shift: int) -> list[tuple[int, list[int]]]:
    """(high part, [low parts]) per run of sorted packed integers (high part << shift | low part)."""
    mask = (1 << shift) - 1
    runs = []
    lo, n = 0, len(packed)
    while lo < n:
        high = packed[lo] >> shift
        hi = bisect_left(packed, (high + 1) << shift, lo)
        runs.append((high, list(map(and_, packed[lo:hi], repeat(mask))) if high else packed[lo:hi]))
        lo = hi
    return runs


def held_name_counts(los: list[int], his: list[int], key_numbers: list[int],
                     names: list[int]) -> Counter | None:
    """(key number, name) -> how many of the ranges of that key hold at least one call of that name; None
    where too wide. Each name's running count packed in `width` bits (its top bit clear: a count stays
    under it); a range holds the name where the difference of its two ends' counts is not zero, which
    adding all ones below each top bit turns into that top bit."""
    distinct = list(dict.fromkeys(names))
    width = len(names).bit_length() + 1
    if width * len(distinct) > MAX_CODE_BITS:
        return None
    one = {name: 1 << (width * i) for i, name in enumerate(distinct)}
    prefix = [0]
    prefix += accumulate(map(one.__getitem__, names))
    below = sum(((1 << (width - 1)) - 1) << (width * i) for i in range(len(distinct)))
    tops = sum(1 << (width * i + width - 1) for i in range(len(distinct)))
    held = map(and_, map(add, map(sub, map(prefix.__getitem__, his), map(prefix.__getitem__, los)), repeat(below)),
               repeat(tops))
    key_shift = tops.bit_length()
    counts: Counter = Counter()
    for combined, ranges in Counter(map(or_, map(lshift, key_numbers, repeat(key_shift)), held)).items():
        key_number = combined >> key_shift
        for i, name in enumerate(distinct):
            if combined >> (width * i + width - 1) & 1:
                counts[(key_number, name)] += ranges
    return counts
