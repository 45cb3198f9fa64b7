"""Datasheet figures are found by the exact device name NVML reports and its memory size; anything
else has none (checks that need them are not graded)."""

from __future__ import annotations

import pytest

from aiperf_lab.metrics.nominal import DATASHEETS, datasheet_for, nominal_for, pcie_nominal_gb_s

GiB = 2**30


@pytest.mark.parametrize("name, memory_gib, bf16, fp32, memory_tb_s", [
    ("NVIDIA A100-SXM4-40GB", 40.0, 312.0, 19.5, 1.555),
    ("NVIDIA A100-PCIE-40GB", 40.0, 312.0, 19.5, 1.555),
    ("NVIDIA A100-SXM4-80GB", 79.2, 312.0, 19.5, 2.039),
    ("NVIDIA A100 80GB PCIe", 79.2, 312.0, 19.5, 1.935),
    ("NVIDIA H100 80GB HBM3", 79.6, 989.0, 67.0, 3.35),
    ("NVIDIA H100 PCIe", 79.6, 756.0, 51.0, 2.0),
    ("NVIDIA H100 NVL", 93.6, 835.0, 60.0, 3.9),
    ("NVIDIA H200", 140.4, 989.0, 67.0, 4.8),
    ("NVIDIA H200 NVL", 140.4, 835.0, 60.0, 4.8),
    ("NVIDIA GH200 480GB", 95.6, 989.0, 67.0, 4.0),
    ("NVIDIA GH200 144G HBM3e", 143.8, 989.0, 67.0, 4.9),
    ("NVIDIA H800 80GB HBM3", 79.6, 989.0, 67.0, 3.35),
    ("NVIDIA H800 PCIe", 79.6, 756.0, 51.0, 2.0),
    ("NVIDIA H20", 95.6, 148.0, 44.0, 4.0),
    ("NVIDIA B200", 179.1, 2250.0, 75.0, 8.0),
    ("NVIDIA L4", 22.5, 121.0, 30.3, 0.3),
    ("NVIDIA L40S", 44.4, 362.0, 91.6, 0.864),
    ("NVIDIA A10", 22.5, 125.0, 31.2, 0.6),
    ("Tesla T4", 15.0, None, 8.1, 0.32),
    ("Tesla V100-SXM2-16GB", 16.0, None, 15.7, 0.9),
    ("Tesla V100-SXM2-32GB", 32.0, None, 15.7, 0.9),
    ("Tesla V100-PCIE-32GB", 32.0, None, 14.0, 0.9),
    ("NVIDIA GeForce RTX 4090", 24.0, 165.2, 82.6, 1.008),
    ("NVIDIA GeForce RTX 3090", 24.0, 35.6, 35.6, 0.936),
])
def test_each_device_by_its_exact_name_and_memory(name, memory_gib, bf16, fp32, memory_tb_s):
    sheet = datasheet_for(name, int(memory_gib * GiB))
    assert sheet is not None and sheet.name == name
    assert (sheet.bf16_tflops, sheet.fp32_tflops, sheet.memory_tb_s) == (bf16, fp32, memory_tb_s)
    assert nominal_for(name, int(memory_gib * GiB))["memory_tb_s"] == memory_tb_s
    assert datasheet_for(name) == sheet            # without a memory size the name alone decides


def test_nvl_and_pcie_parts_do_not_get_the_sxm_figures():
    assert datasheet_for("NVIDIA H100 NVL").bf16_tflops != datasheet_for("NVIDIA H100 80GB HBM3").bf16_tflops
    assert datasheet_for("NVIDIA H200 NVL").fp32_tflops == 60.0
    assert datasheet_for("NVIDIA A100 80GB PCIe").memory_tb_s == 1.935


def test_unknown_names_and_mismatched_memory_have_no_figures():
    for name in ("NVIDIA GeForce GT 710", "NVIDIA RTX 6000 Ada Generation", "H100", "NVIDIA H100", "", None):
        assert nominal_for(name) is None
    assert datasheet_for("NVIDIA H200", 80 * GiB) is None          # a name that does not fit its memory
    assert datasheet_for("NVIDIA A100-SXM4-40GB", 80 * GiB) is None


def test_the_table_has_one_entry_per_name():
    names = [s.name for s in DATASHEETS]
    assert len(names) == len(set(names))


def test_pcie_nominal_per_direction():
    assert pcie_nominal_gb_s(5, 16) == 63.0 and pcie_nominal_gb_s(4, 16) == 31.5
    assert pcie_nominal_gb_s(None, 16) is None and pcie_nominal_gb_s(5, 0) is None
