"""--redact-hosts: this host's own names, users, addresses and MACs (names resolved once per process, for at most
NAME_LOOKUP_S each), and the judgements of IPv4/IPv6 addresses, versions, host names and MACs in text."""

from __future__ import annotations

import functools
import ipaddress
import operator
import os
import re
import socket

from .names import NAME_WORD_SPLIT
from .spans import _split_matches, has, has_any


IPV4 = re.compile(r"[0-9](?<![\w.][0-9])[0-9]{0,2}(?:\.[0-9]{1,3}){3}(?![\w.-]{0,32}?[0-9])")  # octets checked in code
# A dotted quad is also a package version ("9.19.0.56" for cuDNN). With --redact-hosts every one is an
# address (the flag's promise) except where the text says it is a version: a version word or a version
# operator right before it ("version 9.1.0.70", "==12.4.5.8"), a CUDA library's name right before it
# ("nvidia-cudnn-cu13": "9.19.0.56", "tensorrt 10.0.1.6"), or a local-version "+" after it. An address
# label ("inet", "host", "@", "//") or this host's or the SSH peer's own address always wins.
ADDRESS_BEFORE = re.compile(r"(?i)(?:inet6?|addr|address|ip|host|server|endpoint|master_addr|from|to|via|src|dst)"
                            r"[\s:=\"']{1,3}$|[@/]$")
VERSION_WORDS = {"version", "ver", "release", "build", "driver", "firmware", "vbios", "rev", "revision", "kernel",
                 "linux", "python", "gcc", "glibc"}
VERSION_LIBRARIES = ("nvidia", "cuda", "cudnn", "cublas", "cufft", "curand", "cusolver", "cusparse", "nccl", "tensorrt",
                     "torch", "triton", "nvjitlink", "cupti", "nvtx", "cufile", "nvshmem", "jax")
VERSION_LIBRARY = re.compile("|".join(VERSION_LIBRARIES))
NAME_RUN = re.compile(r"[a-z0-9._-]{0,64}")
# Candidates for IPv6 (full, compressed, with an embedded IPv4 or a zone); each is checked by
# ipaddress, so times (12:34:56) and MACs (six groups, no "::") are not addresses.
# It may follow a name and a colon ("host:2001:db8::1"), not a hex group and a colon (mid-address);
# an embedded IPv4 (::ffff:203.0.113.9, 0:0:0:0:0:ffff:203.0.113.9) is part of it. A compressed one holds a hex
# digit ("::" alone identifies nobody: ":*:" repeated gave a million of them to look at). NCCL's IB transport prints
# the peer's GID glued to its label (`remoteGidsfe80::ba59:9f03:ff1e:2a3b`, a link-local address holding its MAC).
IPV6 = re.compile(r"(?:(?<![\w.])|(?<=remoteGids))(?<![0-9A-Fa-f]:)(?<!::)(?:(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}"
                  r"|(?:[0-9A-Fa-f]{1,4}:){6}(?:\d{1,3}\.){3}\d{1,3}|(?=[0-9A-Fa-f:]{0,39}::)"
                  r"(?=::[0-9A-Fa-f]|[0-9A-Fa-f])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:(?:\d{1,3}\.){3}\d{1,3}|[0-9A-Fa-f]{1,4})?)(?:%[\w.-]{1,32})?(?![\w:])")
# An InfiniBand GUID after its name: ibstat's `Port GUID: 0x248a0703005d5e11`, ibv_devinfo's `node_guid: 248a:0703:005d:5e10`
# (lower-cased text; a zero GUID says none)
IB_GUID = re.compile(r"guid[\"']?[ \t]{0,3}[:=]?[ \t]{0,8}[\"']?(?P<guid>0x[0-9a-f]{16}|[0-9a-f]{4}(?::[0-9a-f]{4}){3})(?![\w:])"
                     r"(?<!0x0000000000000000)(?<!0000:0000:0000:0000)")
# MAC addresses, colon- or dash-separated (this host's and any other: they identify a machine).
# Matched from its first separator (a scan for ":" or "-" skips ahead; one for a hex digit cannot), so a
# match starts 2 characters before m.start(); run on the lower-cased text.
MAC = re.compile(r"(?P<sep>[:-])(?<=(?<![\w:-])[0-9a-f]{2}[:-])[0-9a-f]{2}(?:(?P=sep)[0-9a-f]{2}){4}(?![\w:-])")
BORING_MACS = {"00:00:00:00:00:00", "ff:ff:ff:ff:ff:ff"}
MAC_TEXT = re.compile(r"[0-9a-f]{2}(?::[0-9a-f]{2}){5}")
# 12 hex digits alone, letters and digits both: not inside a longer run or a name, nor a group of a UUID (GPU-...-
# 426614174000), a PCI or IPv6 address (after or before "-", ".", ":"), nor an address after 0x
BARE_MAC = re.compile(r"(?<![\w.:-])(?=[0-9]{0,11}[A-Fa-f])(?=[A-Fa-f]{0,11}[0-9])[0-9A-Fa-f]{12}(?![\w.:-])")
MAC_WORDS_BEFORE = re.compile(r"(?:mac|ether|hwaddr|lladdr|bssid|hw addr|address|addr)[^\n]{0,16}\Z")
# Cisco's spelling, 001b.213a.4f5c (with a letter in it: 1234.5678.9012 is a number), from its first dot
CISCO_MAC = re.compile(r"\.(?<=(?<![\w.:-])[0-9a-f]{4}\.)[0-9a-f]{4}\.[0-9a-f]{4}(?![\w:-])(?!\.[\w])")
# Cloud host names that hold an address or a project: AWS ip-10-0-1-23[.ec2.internal | .REGION.compute.internal],
# GCP INSTANCE[.ZONE].c.PROJECT.internal; found from their literal, the rest of the name walked back in code.
AWS_HOST = re.compile(r"ip-(?<![\w.-]ip-)(?P<octets>[0-9]{1,3}-[0-9]{1,3}-[0-9]{1,3}-[0-9]{1,3})"
                      r"(?:\.[a-z0-9-]{1,63}){0,6}(?![\w-])(?!\.[\w])")
GCP_HOST = re.compile(r"\.c\.[a-z][a-z0-9-]{4,28}[a-z0-9]\.internal(?![\w-])(?!\.[\w])")
# Peers named as hosts (lower-cased text): the value of a launcher's rendezvous setting (`MASTER_ADDR=gpu-node-12`,
# `--master_addr gpu-node-12`, `--rdzv_endpoint=trainer-0:29400`, `hostname: node7`), an MPI hostfile's line
# (`node17 slots=8`), a Kubernetes service's or pod's DNS name (`trainer-0.trainer.default.svc.cluster.local`). The
# name holds a letter, starts with one, and is no reference, placeholder or localhost (an address is IPV4's).
_PEER_NAME = r"(?P<name>[a-z][a-z0-9-]{0,62}(?:\[[0-9,-]{1,64}\])?(?:\.[a-z0-9-]{1,63}){0,8})"   # (a Slurm host list's [12-13])
_PEER_NAME_END = r"(?![\w.$@{}<>/\[-])"
PEER_SETTING = re.compile(r"(?:(?<![a-z0-9])(?:master[_-]?addr|rdzv[_-]endpoint|hostname|nodename|nodelist)[\"']?\]?[ \t]{0,3}"
                          r"[=:][ \t]{0,3}|--(?:master[_-]addr|rdzv[_-]endpoint|hostname)[ \t]{1,3})[\"']?" + _PEER_NAME + _PEER_NAME_END)
PEER_SETTING_WORDS = ("master", "rdzv", "hostname", "nodename", "nodelist")
HOSTFILE_LINE = re.compile(r"(?<![^\s])" + _PEER_NAME + r"[ \t]{1,8}(?:max[_-])?slots=[0-9]{1,4}"
                           r"(?:[ \t]{1,8}max[_-]slots=[0-9]{1,4})?[ \t]*(?=\r?\n|\Z)")
# (a Kubernetes env list's item: `- name: MASTER_ADDR` over `  value: gpu-node-12`)
PEER_ENV_ITEM = re.compile(r"(?<![a-z0-9])(?:master[_-]?addr|rdzv[_-]endpoint|hostname|nodename)[\"']?[ \t]{0,3}\r?\n[ \t]{0,64}"
                           r"[\"']?value[\"']?[ \t]{0,3}:[ \t]{0,3}[\"']?" + _PEER_NAME + _PEER_NAME_END)
# An MPICH hostfile's line (`node17:8`: a name and its process count alone on a line; the name holds a digit or a `-`, so
# a log's `epoch:3` is none), found from the line's break (and at the text's start)
MPICH_HOSTFILE_LINE = re.compile(r"\n(?=[a-z.]{1,600}[0-9-])(?=[a-z][a-z0-9-]{0,62}(?:\.[a-z0-9-]{1,63}){0,8}:[0-9]{1,4}[ \t]*"
                                 r"(?:\r?\n|\Z))" + _PEER_NAME + ":")
PEER_NAME_ENDS_LINE = re.compile(r"(?:master[_-]?addr|rdzv[_-]endpoint|hostname|nodename)[\"']?[ \t]{0,3}\r?\n?\Z")
K8S_NAME_SPLIT = re.compile(r"((?<![a-z0-9.-])[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){1,6}\.(?:svc|pod)(?:\.cluster\.local)?)"
                            r"(?![\w-])(?!\.[\w])")   # (the whole name, two labels at least before .svc: one group, for split())
K8S_SERVICE_NAME = re.compile(r"\.(?:svc|pod)(?<=[a-z0-9-]\.svc|[a-z0-9-]\.pod)(?:\.cluster\.local)?(?![\w-])(?!\.[\w])")
NOT_PEER_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "none", "null", "true", "false",
                            "auto", "env"})
HOST_NAME_REVERSED = re.compile(r"[a-z0-9-](?:[a-z0-9-]|\.(?=[a-z0-9])){0,252}")
# Only text with "::" next to a hex digit or with seven colons in a row of groups can hold an IPv6 address (a
# compressed one holds "H::" or "::H", see IPV6); these literal-led checks spare the full scan (which must try
# every hex character) on most text, and say where the first address can start (48 characters before at most).
IPV6_HINT = re.compile(r":[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:")
IPV6_COMPRESSED_HINT = re.compile(r"::(?:(?<=[0-9A-Fa-f]::)|[0-9A-Fa-f])")
# Every dotted quad holds this from its first dot on: the IPV4 scan (which tries every digit) starts 3 characters
# before the first one, and text without one (most log text) is not scanned at all.
IPV4_HINT = re.compile(r"\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]")
# Where a MAC can be, found by a literal search in a map of the text's characters (ASCII; encode makes any other
# character "?", one byte each, so offsets stay): BARE_MAC's 12 hex digits between characters that are not
# [\w.:-] (another character, of any kind, is taken as such here and BARE_MAC itself judges the candidate), and
# MAC's six groups with a separator ("hh:hh:hh:hh:hh:hh", either separator as ":"), which gates MAC's scan.
def _class_map(classes: dict[str, str], default: str) -> bytes:
    table = bytearray(default.encode() * 256)
    for characters, kind in classes.items():
        for character in characters.encode():
            table[character] = ord(kind)
    return bytes(table)


_HEX_DIGITS = "0123456789abcdefABCDEF"
BARE_MAC_CLASSES = _class_map({_HEX_DIGITS: "h", "ghijklmnopqrstuvwxyzGHIJKLMNOPQRSTUVWXYZ_.:-": "w"}, " ")
BARE_MAC_CANDIDATE = re.compile(rb" hhhhhhhhhhhh(?![hw])")    # in " " + the map: the match's start is the MAC's
MAC_CLASSES = _class_map({_HEX_DIGITS: "h", ":-": ":"}, " ")
MAC_CANDIDATE = b"hh:hh:hh:hh:hh:hh"
_START_OF = operator.methodcaller("start")
# IPV4 and IPV6 as one group each, for split(): the matches and their offsets in C (see _split_matches)
IPV4_SPLIT = re.compile(f"({IPV4.pattern})")
AWS_HOST_SPLIT = re.compile(f"({AWS_HOST.pattern})")   # (and its octets group)
IPV6_SPLIT = re.compile(f"({IPV6.pattern})")
# What follows a C++ scope or call, never an address: `c10::{lambda()#1}`, `ab::cd()`, `c10::<lambda>`, `c10::~Storage`
CXX_AFTER_SCOPE = frozenset("({<~")

GPU_UUIDS = [re.compile(rf"{kind}-(?<![\w-]{kind}-)[0-9a-fA-F]{{8}}(?:-[0-9a-fA-F]{{4}}){{3}}-[0-9a-fA-F]{{12}}(?![\w-])")
             for kind in ("GPU", "MIG")]
# PyTorch prints a GPU's UUID without its GPU- (`_CudaDeviceProperties(name='NVIDIA H100 ...', uuid=2a7c5f1e-...)`)
GPU_UUID_AFTER_NAME = re.compile(r"uuid=(?P<uuid>[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12})(?![\w-])")
# A Slurm host list naming this host's kind of node (gpunode[17-18], gpunode[01,03-04]): its prefix, then a list of
# two or more (a range or a comma: `batch[0]` on a host named batch1 is code, not a host list)
HOST_NUMBERED = re.compile(r"(?P<prefix>[a-z][a-z-]{2,})[0-9]+")
# Addresses that identify nobody; left as they are so the text stays readable.
BORING_IPS = {"127.0.0.1", "0.0.0.0", "255.255.255.255", "255.255.255.0", "::", "::1"}
SSH_ADDRESS_VARIABLES = ("SSH_CONNECTION", "SSH_CLIENT")
# User and host names that are also common words or product names (USER=nvidia, ubuntu, data; HOSTNAME=h100,
# dgx, gpu): replaced only where the text uses them as a user or host name, never in "NVIDIA H100 80GB
# HBM3", "Ubuntu 22.04", "Data loader" (see _in_host_context). A specific name (alice, gpunode17) goes everywhere.
COMMON_NAMES = {"nvidia", "ubuntu", "debian", "centos", "fedora", "rocky", "alma", "admin", "administrator", "user",
                "users", "data", "ec2-user", "cloud-user", "azureuser", "opc", "jovyan", "docker", "ray", "runner",
                "vscode", "coder", "jenkins", "developer", "dev", "test", "tester", "ml", "ai", "gpu", "gpus", "student",
                "guest", "pi", "oracle", "hadoop", "spark", "slurm", "www-data", "nobody", "app", "service", "triton",
                "cuda", "train", "training", "compute", "worker", "master", "head", "node", "server", "host",
                "workstation", "desktop", "laptop", "sandbox", "jupyter", "notebook", "devbox", "container", "default",
                "demo", "lab", "linux", "dgx", "hgx", "mgx", "igx", "pytorch", "torch", "model", "models", "bench",
                "benchmark", "perf", "profile", "profiler", "nsys", "ncu", "cluster", "build", "ci"}
# GPU and system product names used as host names (h100, a100-80g, gh200, dgx-h100, rtx4090, l40s)
PRODUCT_NAME = re.compile(r"(?:(?:dgx|hgx|mgx)-?)?(?:[abhlvtkp][0-9]{1,3}[a-z]?|g[bh][0-9]{3}|rtx-?[0-9]{4}[a-z]*|"
                          r"(?:quadro|tesla|titan|jetson|orin|thor)[a-z0-9-]*)(?:-[0-9]{1,3}g?b?)?")
# Where a word is a user or host name: a home folder, user@host, //host, name=value for a user or host
# key, uname's "Linux HOST", and "@host" or "host." (an FQDN) after it; checked on the lower-cased text.
HOST_CONTEXT_BEFORE = re.compile(r"(?:home/|users/|users\\|@|//|linux |(?:user|username|login|logname|owner|"
                                 r"hostname|host|node|nodename|server|machine|uid)[\"']?[ \t]{0,3}[=:][ \t]{0,3}[\"']?)\Z")
HOST_CONTEXT_AFTER = {"user": re.compile(r"@"), "host": re.compile(r"@|\.[a-z][a-z0-9-]*\.[a-z]|:[~/]")}


def is_common_name(name: str) -> bool:
    """Whether a user or host name is also a common word or a product name (COMMON_NAMES, PRODUCT_NAME)."""
    name = name.lower()
    return name in COMMON_NAMES or PRODUCT_NAME.fullmatch(name) is not None


def _in_host_context(lower: str, start: int, end: int, kind: str) -> bool:
    """Whether lower[start:end] is used as a user or host name there (HOST_CONTEXT_BEFORE / _AFTER), or
    is a line of its own (what `hostname` or `whoami` prints)."""
    if HOST_CONTEXT_BEFORE.search(lower, max(0, start - 24), start) or HOST_CONTEXT_AFTER[kind].match(lower, end):
        return True
    return (start == 0 or lower[start - 1] == "\n") and lower[end:end + 1] in ("", "\n", "\r")


def _ipv4_verdict(value: str, known: set[str]) -> str:
    """"skip" (not an address: an octet over 255 or with a leading zero; or one that identifies nobody),
    "always" (this host's or the SSH peer's) or "check" (an address unless the text marks a version)."""
    octets = value.split(".")
    if is_padded_quad(value):   # zero-padded (010.001.002.003), read as the address it writes
        return _ipv4_verdict(unpadded(value), known) if all(int(octet) <= 255 for octet in octets) else "skip"
    if value in BORING_IPS or value.startswith("127.") or any(int(o) > 255 or (len(o) > 1 and o[0] == "0")
                                                              for o in octets):
        return "skip"
    return "always" if value in known else "check"


def is_padded_quad(value: str) -> bool:
    """A dotted quad of four 3-digit octets, one or more with leading zeros (010.001.002.003, 192.168.001.010)."""
    octets = value.split(".")
    return all(len(octet) == 3 for octet in octets) and any(octet[0] == "0" for octet in octets)


def unpadded(value: str) -> str:
    """A dotted quad without its octets' leading zeros: 010.001.002.003 is 10.1.2.3 (one placeholder for both)."""
    return ".".join(str(int(octet)) for octet in value.split(".")) if "0" in value else value


def _marks_version(before: str) -> bool:
    """Whether the (lower-cased) text right before a dotted quad says it is a version: a version operator
    (==, >=), or a name ending in a version word or holding a CUDA library's name ("NV_CUDNN_VERSION=",
    "tensorrt ", '"nvidia-cudnn-cu13": "'). String operations on 64 characters, no scan."""
    before = before.rstrip(" \t\"'")
    if before[-2:] in ("==", ">=", "<=", "~=", "!="):
        return True
    name = NAME_RUN.match(before.rstrip(":= \t\"'")[::-1]).group(0)[::-1]  # the name right before
    return bool(name) and (not VERSION_WORDS.isdisjoint(NAME_WORD_SPLIT.split(name))
                           or VERSION_LIBRARY.search(name) is not None)


class _VersionContexts(dict):
    """_marks_version per (lower-cased) 64 characters before a dotted quad; the memory is bounded."""

    def __missing__(self, before: str) -> bool:
        if len(self) > 65536:
            self.clear()
        verdict = self[before] = _marks_version(before)
        return verdict


def _is_ipv6(value: str) -> bool:
    try:
        ipaddress.IPv6Address(value)
    except ValueError:
        return False
    return True


def _is_address(value: str) -> bool:
    try:
        ipaddress.ip_address(value.split("%", 1)[0])
    except ValueError:
        return False
    return True


def _own_macs(root: str = "/sys/class/net") -> set[str]:
    """This host's MAC addresses (/sys/class/net/*/address), lower case, the all-zero one left out."""
    found = set()
    try:
        for entry in os.scandir(root):
            try:
                with open(os.path.join(entry.path, "address")) as handle:
                    value = handle.read(64).strip().lower()
            except OSError:
                continue
            if MAC_TEXT.fullmatch(value) and value not in BORING_MACS:  # (MAC itself is matched from a separator)
                found.add(value)
    except OSError:
        pass
    return found


def _own_addresses(host_names: list[str]) -> set[str]:
    """This host's addresses, from its interfaces and its names; what `hostname -I` prints."""
    found: set[str] = set()
    try:
        import psutil
        for addresses in psutil.net_if_addrs().values():
            for address in addresses:
                if address.family in (socket.AF_INET, socket.AF_INET6):
                    found.add(address.address.split("%", 1)[0])
    except Exception:  # psutil missing or the interfaces unreadable: the names still help
        pass
    for name in host_names:
        found.update(_resolved_addresses(name))
    return {a for a in found if a not in BORING_IPS and not a.startswith("127.")}


NAME_LOOKUP_S = 2.0  # a resolver that does not answer: give up on that name (its interfaces' addresses stay)


@functools.lru_cache(maxsize=64)
def _resolved_addresses(name: str) -> frozenset[str]:
    """The addresses `name` resolves to, looked up once per process and for at most NAME_LOOKUP_S: on a node
    whose resolver never answers, getaddrinfo waits its own timeouts (tens of seconds per name), and every
    Redactor with --redact-hosts would wait them again. The lookup runs in a daemon thread left behind when late."""
    import threading

    box: list[frozenset[str]] = []

    def look_up() -> None:
        try:
            box.append(frozenset(str(info[4][0]).split("%", 1)[0] for info in socket.getaddrinfo(name, None)))
        except (OSError, UnicodeError):
            box.append(frozenset())

    thread = threading.Thread(target=look_up, name="aiperf-name-lookup", daemon=True)
    thread.start()
    thread.join(NAME_LOOKUP_S)
    return box[0] if box else frozenset()


def _name_start(lower: str, dot: int, low: int = 0) -> int:
    """Where the host name whose labels end at `dot` (a "." before a domain) starts: its labels walked back, no
    further than 253 characters nor `low` (where the last name found ended: each character is walked once)."""
    low = max(low, dot - 253)
    name = HOST_NAME_REVERSED.match(lower[low:dot][::-1])
    return dot - name.end() if name else dot + 1


def peer_env_item_hold(text: str, start: int, end: int) -> int:
    """Where a stream holds a line ending in a peer setting's name (`- name: MASTER_ADDR`), its value on the next line
    (PEER_ENV_ITEM): the line's start; `end` where it ends otherwise."""
    tail = text[max(start, end - 24):end].lower()
    return start if ("addr" in tail or "name" in tail or "endpoint" in tail) and PEER_NAME_ENDS_LINE.search(tail) else end


def peer_names(lower: str) -> list[tuple[int, int]]:
    """Where (lower-cased) text names its peers as hosts (PEER_SETTING, HOSTFILE_LINE, K8S_SERVICE_NAME): each name's
    start and end."""
    found: list[tuple[int, int]] = []
    if has_any(lower, PEER_SETTING_WORDS):   # a launcher's rendezvous setting
        found += [m.span("name") for m in PEER_SETTING.finditer(lower) if m.group("name") not in NOT_PEER_NAMES]
        if has(lower, "value"):
            found += [m.span("name") for m in PEER_ENV_ITEM.finditer(lower) if m.group("name") not in NOT_PEER_NAMES]
    if has(lower, "slots="):   # an MPI hostfile's lines
        found += [m.span("name") for m in HOSTFILE_LINE.finditer(lower) if m.group("name") not in NOT_PEER_NAMES]
    if ":" in lower:   # an MPICH hostfile's lines (the text's first line read as after a break)
        first = MPICH_HOSTFILE_LINE.match("\n" + lower[:640])
        for m, shift in [*([(first, -1)] if first else []), *((m, 0) for m in MPICH_HOSTFILE_LINE.finditer(lower))]:
            name = m.group("name")
            if name not in NOT_PEER_NAMES:   # (the name holds a digit or a `-`: the pattern's first lookahead)
                found.append((m.start("name") + shift, m.end("name") + shift))
    if (first := K8S_SERVICE_NAME.search(lower)) is not None:   # a Kubernetes service's or pod's DNS name, from the
        _, starts, ends = _split_matches(K8S_NAME_SPLIT, lower, lower.rfind("\n", 0, first.start()) + 1)   # first's line
        found += zip(starts, ends)
    return found


def unpadded_quads(values: list[str]) -> list[str]:
    """Dotted quads with any zero-padded one written as the address it is (010.001.002.003 as 10.1.2.3)."""
    padded = {value for value in set(values) if is_padded_quad(value)}
    return [unpadded(value) if value in padded else value for value in values] if padded else values
