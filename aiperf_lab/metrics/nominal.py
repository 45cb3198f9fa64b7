"""What a device should reach on paper: datasheet rates and PCIe link bandwidth, to put measurements beside."""

from __future__ import annotations

# Vendor datasheet figures (dense, no sparsity): name fragment -> (bf16 TFLOP/s, fp32 TFLOP/s, memory TB/s).
# The first fragment found in the device name wins, so a name that holds another comes first
# ("NVIDIA GH200 480GB" contains "H200", "NVIDIA H100 PCIe" contains "H100").
NOMINAL = [
    ("GH200", (989.0, 67.0, 4.0)),
    ("H200", (989.0, 67.0, 4.8)),
    ("H100 PCIe", (756.0, 51.0, 2.0)),
    ("H100", (989.0, 67.0, 3.35)),
    ("B200", (2250.0, 80.0, 8.0)),
    ("A100-SXM4-80GB", (312.0, 19.5, 2.039)),
    ("A100", (312.0, 19.5, 1.555)),
    ("L40S", (362.0, 91.6, 0.864)),
    ("A10G", (70.0, 31.2, 0.6)),
]
PCIE_GBPS_PER_LANE = {3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}  # per direction, after encoding


def nominal_for(name: str | None) -> dict | None:
    if not name:
        return None
    for fragment, (bf16, fp32, memory) in NOMINAL:
        if fragment in name:
            return {"bf16_matmul_tflops": bf16, "fp32_matmul_tflops": fp32, "memory_tb_s": memory,
                    "source": "vendor datasheet, dense"}
    return None


def pcie_nominal_gb_s(gen: int | None, width: int | None) -> float | None:
    if gen in PCIE_GBPS_PER_LANE and width:
        return round(PCIE_GBPS_PER_LANE[gen] * width, 1)
    return None
