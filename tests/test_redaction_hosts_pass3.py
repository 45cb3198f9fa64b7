"""--redact-hosts, red team pass 3 (H5): this host's and user's names glued to a word with "_", a Slurm host list
of this host's kind of node, and a GPU's UUID as PyTorch prints it (no GPU- before it)."""

from __future__ import annotations

import pytest

from aiperf_lab.triage.redact import Redactor

ENV = {"HOSTNAME": "gpunode17.acme-corp.example", "USER": "alice"}
UUID = "2a7c5f1e-9b3d-4c8a-8e6f-0d1c2b3a4e5f"


@pytest.mark.parametrize("line, gone", [
    ("writing /scratch/gpunode17_rank0.log", "gpunode17"),
    ("rank0_gpunode17.out", "gpunode17"),
    ("saved alice_checkpoint.pt", "alice"),
    ("NODELIST gpunode[17-18]", "gpunode[17-18]"),
    ("SLURM_JOB_NODELIST=gpunode[01,03-04,17]", "gpunode[01,03-04,17]"),
])
def test_this_hosts_and_users_names_go_glued_or_listed(line, gone):
    out = Redactor(environ=ENV, redact_hosts=True).text(line)
    assert gone not in out and ("host-" in out or "user-" in out)
    assert Redactor(environ=ENV).text(line) == line   # only with --redact-hosts


def test_a_gpu_uuid_as_pytorch_prints_it_goes_as_its_gpu_form_does():
    r = Redactor(environ=ENV, redact_hosts=True)
    props = f"_CudaDeviceProperties(name='NVIDIA H100 80GB HBM3', major=9, minor=0, total_memory=81089MB, uuid={UUID}, L2_cache_size=50MB)"
    out = r.text(props + f"\nGPU 0: NVIDIA H100 (UUID: GPU-{UUID})\n")
    assert UUID not in out and out.count("gpu-uuid-1") == 2 and "NVIDIA H100 80GB HBM3" in out


@pytest.mark.parametrize("line", ["data_loader ready", "gpunode_stats", "the gpunodes list", "gpunode[x]", "alicea_b",
                                  "gpunode[0] = x", "expert[3] loaded"])
def test_other_words_stay(line):
    env = {**ENV, "USER": "data"}   # a common word for a user name keeps its strict bounds
    assert Redactor(environ=env, redact_hosts=True).text(line) == line


def test_nccl_peer_gid_glued_to_its_label_goes():
    # NCCL's IB transport prints `remoteGids%s` with no space (rt8 L4): the peer's link-local GID holds its MAC.
    line = ("node-01:12345:12410 [0] NCCL WARN NET/IB : Got completion from peer 10.1.2.4<45678> with status=12 "
            "opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.1.2.3 remoteGidsfe80::ba59:9f03:ff1e:2a3b hca mlx5_0")
    out = Redactor(environ=ENV, redact_hosts=True).text(line)
    assert "fe80::ba59:9f03:ff1e:2a3b" not in out and "remoteGidsip-" in out
    assert "10.1.2.3" not in out and "hca mlx5_0" in out
    assert Redactor(environ=ENV).text(line) == line   # only with --redact-hosts
