"""Datasheet figures are found by device name: the most specific name must win."""

from __future__ import annotations

import pytest

from aiperf_lab.metrics.nominal import nominal_for, pcie_nominal_gb_s


@pytest.mark.parametrize("name, memory_tb_s", [
    ("NVIDIA H200", 4.8),
    ("NVIDIA GH200 480GB", 4.0),
    ("NVIDIA H100 PCIe", 2.0),
    ("NVIDIA H100 80GB HBM3", 3.35),
    ("NVIDIA A100-SXM4-80GB", 2.039),
    ("NVIDIA A100-SXM4-40GB", 1.555),
])
def test_the_most_specific_device_name_wins(name, memory_tb_s):
    assert nominal_for(name)["memory_tb_s"] == memory_tb_s


def test_unknown_devices_have_no_nominal_figures():
    assert nominal_for("NVIDIA GeForce GT 710") is None and nominal_for(None) is None


def test_pcie_nominal_per_direction():
    assert pcie_nominal_gb_s(5, 16) == 63.0 and pcie_nominal_gb_s(4, 16) == 31.5
    assert pcie_nominal_gb_s(None, 16) is None and pcie_nominal_gb_s(5, 0) is None
