"""CUDA C kernels compiled at run time through cuda-python (cuda.core and NVRTC), launched on
PyTorch's current stream with PyTorch tensors as arguments.

PyTorch owns the memory and the timing (CUDA events); cuda.core only compiles and launches, so a
kernel written here shows up in nsys and ncu under its own name, next to PyTorch's kernels.
Scalar arguments are passed as 64-bit integers (kernels take `long long`) so no ctypes are needed.
"""

from __future__ import annotations

import sys


def _cuda_core():
    try:
        import cuda.core as core
        if not hasattr(core, "Program"):
            raise ImportError
        return core
    except ImportError:
        pass
    try:
        import cuda.core.experimental as core
        return core
    except ImportError:
        print("this workload compiles CUDA C at run time and needs cuda-python: pip install 'aiperf-lab[labs]' "
              "(cuda-python, with a CUDA 12 or 13 driver)", file=sys.stderr)
        raise SystemExit(2)


class _TorchStream:
    """Hands PyTorch's stream to cuda.core through the __cuda_stream__ protocol."""

    def __init__(self, torch_stream):
        self._stream = torch_stream

    def __cuda_stream__(self):
        return (0, self._stream.cuda_stream)


class Kernels:
    """Compile `source` once; `launch(name, grid, block, *args, shared=0)` on PyTorch's current stream."""

    def __init__(self, torch, source: str, names: list[str], options: tuple[str, ...] = ()):
        core = self._core = _cuda_core()
        self._torch = torch
        self.device = core.Device(torch.cuda.current_device())
        self.device.set_current()
        arch = "".join(str(v) for v in self.device.compute_capability)
        opts = core.ProgramOptions(std="c++17", arch=f"sm_{arch}", use_fast_math=False)
        program = core.Program(source, code_type="c++", options=opts)
        self._module = program.compile("cubin")
        self._kernels = {name: self._module.get_kernel(name) for name in names}
        self._stream = self.device.create_stream(_TorchStream(torch.cuda.current_stream()))
        self._configs: dict = {}

    def launch(self, name: str, grid, block, *args, shared: int = 0) -> None:
        key = (tuple(grid), tuple(block), shared)
        config = self._configs.get(key)
        if config is None:
            config = self._configs[key] = self._core.LaunchConfig(grid=grid, block=block, shmem_size=shared)
        values = [a.data_ptr() if hasattr(a, "data_ptr") else int(a) for a in args]
        self._core.launch(self._stream, config, self._kernels[name], *values)


def gpu_or_exit(torch) -> None:
    """These workloads have no CPU path: exit 2 with one line without a GPU."""
    from aiperf_lab.labs.result import need_gpu
    need_gpu(torch)
