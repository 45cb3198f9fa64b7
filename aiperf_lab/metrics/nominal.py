"""What a device should reach on paper: datasheet rates and PCIe link bandwidth, to put measurements beside.

Only checks that are about the datasheet use these figures ("how close to the nominal rate?"); the
labs grade everything else against ceilings measured in the same run. A device that is not in the
table has no datasheet figures: checks that need them are not graded, never an error.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Datasheet:
    name: str                 # exactly as NVML (and torch.cuda.get_device_name) reports it
    memory_gb: float          # the datasheet's memory size, in GB as the vendor counts it
    bf16_tflops: float | None  # dense bf16 tensor-core rate with fp32 accumulate (what torch runs); None: no bf16
    fp32_tflops: float        # non-tensor FP32 (CUDA cores)
    memory_tb_s: float


# Vendor datasheets, dense figures (the datasheets print tensor rates with 2:4 sparsity; these are
# half of those). GeForce parts: the Ada and Ampere GA102 whitepapers' "FP32 accumulate" rates, which
# are half the FP16-accumulate ones. Turing and Volta have no bf16 tensor cores.
DATASHEETS = (
    # A100 datasheet: BF16 312 (624 sparse), FP32 19.5; HBM2 1,555 GB/s (40GB), HBM2e 2,039 (SXM 80GB), 1,935 (PCIe 80GB)
    Datasheet("NVIDIA A100-SXM4-40GB", 40, 312.0, 19.5, 1.555),
    Datasheet("NVIDIA A100-PCIE-40GB", 40, 312.0, 19.5, 1.555),
    Datasheet("NVIDIA A100-SXM4-80GB", 80, 312.0, 19.5, 2.039),
    Datasheet("NVIDIA A100 80GB PCIe", 80, 312.0, 19.5, 1.935),
    # H100 datasheet: SXM BF16 1,979 sparse -> 989, FP32 67, 3.35 TB/s; PCIe 1,513 -> 756, FP32 51, 2.0 TB/s;
    # NVL 1,671 -> 835, FP32 60, 3.9 TB/s (94 GB)
    Datasheet("NVIDIA H100 80GB HBM3", 80, 989.0, 67.0, 3.35),
    Datasheet("NVIDIA H100 PCIe", 80, 756.0, 51.0, 2.0),
    Datasheet("NVIDIA H100 NVL", 94, 835.0, 60.0, 3.9),
    # H800: the H100 SXM and PCIe compute rates, NVLink reduced
    Datasheet("NVIDIA H800 80GB HBM3", 80, 989.0, 67.0, 3.35),
    Datasheet("NVIDIA H800", 80, 989.0, 67.0, 3.35),
    Datasheet("NVIDIA H800 PCIe", 80, 756.0, 51.0, 2.0),
    # H200 datasheet: SXM BF16 1,979 sparse -> 989, FP32 67; NVL 1,671 -> 835, FP32 60; both 141 GB at 4.8 TB/s
    Datasheet("NVIDIA H200", 141, 989.0, 67.0, 4.8),
    Datasheet("NVIDIA H200 NVL", 141, 835.0, 60.0, 4.8),
    # GH200 datasheet: the H100 SXM rates; 96 GB HBM3 at 4.0 TB/s, or 144 GB HBM3e at 4.9 TB/s
    Datasheet("NVIDIA GH200 480GB", 96, 989.0, 67.0, 4.0),
    Datasheet("NVIDIA GH200 144G HBM3e", 144, 989.0, 67.0, 4.9),
    # H20: BF16 148, FP32 44, 96 GB at 4.0 TB/s
    Datasheet("NVIDIA H20", 96, 148.0, 44.0, 4.0),
    # HGX B200: BF16 4.5 PFLOPS sparse -> 2,250, FP32 75, 180 GB HBM3e at 8 TB/s (per GPU)
    Datasheet("NVIDIA B200", 180, 2250.0, 75.0, 8.0),
    # L4: BF16 242 sparse -> 121, FP32 30.3, 300 GB/s; L40S: BF16 733 sparse -> 362, FP32 91.6, 864 GB/s
    Datasheet("NVIDIA L4", 24, 121.0, 30.3, 0.3),
    Datasheet("NVIDIA L40S", 48, 362.0, 91.6, 0.864),
    # A10: BF16 250 sparse -> 125, FP32 31.2, 600 GB/s
    Datasheet("NVIDIA A10", 24, 125.0, 31.2, 0.6),
    # T4: FP32 8.1, 320 GB/s (FP16 tensor cores only)
    Datasheet("Tesla T4", 16, None, 8.1, 0.32),
    # V100: SXM2 FP32 15.7, PCIe 14, V100S 16.4; HBM2 900 GB/s (V100S 1,134) (FP16 tensor cores only)
    Datasheet("Tesla V100-SXM2-16GB", 16, None, 15.7, 0.9),
    Datasheet("Tesla V100-SXM2-32GB", 32, None, 15.7, 0.9),
    Datasheet("Tesla V100-PCIE-16GB", 16, None, 14.0, 0.9),
    Datasheet("Tesla V100-PCIE-32GB", 32, None, 14.0, 0.9),
    Datasheet("Tesla V100S-PCIE-32GB", 32, None, 16.4, 1.134),
    # Ada whitepaper, RTX 4090: BF16 with FP32 accumulate 165.2, FP32 82.6, 1,008 GB/s
    Datasheet("NVIDIA GeForce RTX 4090", 24, 165.2, 82.6, 1.008),
    # GA102 whitepaper, RTX 3090: BF16 with FP32 accumulate 35.6 (71 sparse), FP32 35.6, 936 GB/s
    Datasheet("NVIDIA GeForce RTX 3090", 24, 35.6, 35.6, 0.936),
)
PCIE_GBPS_PER_LANE = {3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}  # per direction, after encoding
# NVML's memory total (GiB, less what the driver reserves) against the datasheet's GB
_MEMORY_RATIO = (0.85, 1.10)


def datasheet_for(name: str | None, memory_bytes: int | None = None) -> Datasheet | None:
    """The datasheet entry for this exact device name, when its memory size (if known) agrees."""
    if not name:
        return None
    for sheet in DATASHEETS:
        if sheet.name != name.strip():
            continue
        if memory_bytes:
            ratio = memory_bytes / 2**30 / sheet.memory_gb
            if not _MEMORY_RATIO[0] <= ratio <= _MEMORY_RATIO[1]:
                continue
        return sheet
    return None


def nominal_for(name: str | None, memory_bytes: int | None = None) -> dict | None:
    sheet = datasheet_for(name, memory_bytes)
    if sheet is None:
        return None
    return {"bf16_matmul_tflops": sheet.bf16_tflops, "fp32_matmul_tflops": sheet.fp32_tflops,
            "memory_tb_s": sheet.memory_tb_s, "source": f"vendor datasheet, dense ({sheet.name}, {sheet.memory_gb:g} GB)"}


def pcie_nominal_gb_s(gen: int | None, width: int | None) -> float | None:
    if gen in PCIE_GBPS_PER_LANE and width:
        return round(PCIE_GBPS_PER_LANE[gen] * width, 1)
    return None
