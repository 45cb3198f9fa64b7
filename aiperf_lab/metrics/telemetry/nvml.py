"""The one NVML layer: every pynvml call in the package goes through `Nvml.call`.

- A call that fails, is unsupported, or names a function this nvidia-ml-py lacks yields None (or, with
  `attempt`, None and the reason), never an exception.
- Old and new names: pass a tuple, the first name this nvidia-ml-py has is used
  (`("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons")`).
- The lost-GPU rule, in one place: a device call that answers NVML_ERROR_GPU_IS_LOST marks that
  device lost, and no device call reaches it again; the other GPUs go on.
- `Nvml.open()` never raises: with no driver (or no nvidia-ml-py) it gives a session with no devices
  and a one-line `status` saying why, which callers show as is.

Used by the telemetry sampler (nvml_source.py, gpm.py), triage's hardware facts and the labs' GPU count.
"""

from __future__ import annotations

from typing import Any, Callable, Union

# NVML return codes we treat specially (values from nvml.h, stable across releases).
SUCCESS = 0
NOT_SUPPORTED = 3
NOT_FOUND = 6
GPU_IS_LOST = 15
ERROR_NAMES = {1: "not initialized", 2: "invalid argument", NOT_SUPPORTED: "not supported",
               4: "no permission", NOT_FOUND: "not found", 7: "insufficient size", 9: "driver not loaded",
               10: "timeout", 12: "NVML library not found", 13: "function not found in this driver",
               GPU_IS_LOST: "GPU is lost", 19: "argument version mismatch", 999: "unknown error"}

Names = Union[str, tuple[str, ...]]  # one function name, or old/new names in order of preference


def error_text(code: int | None) -> str:
    """NVML's meaning of a return code, for reasons shown to users."""
    if code is None:
        return "failed"
    return ERROR_NAMES.get(code, f"NVML error {code}")


class Nvml:
    """An initialised NVML session (or an empty one with `status` saying why there is none)."""

    def __init__(self, module: Any, handles: list[Any], status: str):
        self.module = module
        self.handles = handles
        self.status = status              # "" when GPUs were found, else why there are none
        self.lost: set[int] = set()       # device indexes that fell off the bus (or never gave a handle)
        self.no_handle: dict[int, str] = {}   # index -> why nvmlDeviceGetHandleByIndex failed

    @classmethod
    def open(cls, module: Any = None) -> "Nvml":
        if module is None:
            try:
                import pynvml as module  # the nvidia-ml-py package
            except ImportError:
                return cls(None, [], "no NVML: the nvidia-ml-py package is not installed")
        try:
            module.nvmlInit()
        except Exception as exc:  # NVMLError_LibraryNotFound, _DriverNotLoaded, OSError from ctypes
            return cls(None, [], f"no NVIDIA driver: {describe(exc)}")
        try:
            count = int(module.nvmlDeviceGetCount())
        except Exception as exc:
            _shutdown(module)
            return cls(None, [], f"NVML found no usable GPU: {describe(exc)}")
        handles: list[Any] = []
        broken: dict[int, str] = {}
        for i in range(count):  # one GPU without a handle must not hide the others
            try:
                handles.append(module.nvmlDeviceGetHandleByIndex(i))
            except Exception as exc:
                handles.append(None)
                broken[i] = describe(exc)
        if not handles or len(broken) == len(handles):
            _shutdown(module)
            why = f": {next(iter(broken.values()))}" if broken else ""
            return cls(None, [], f"NVML found no usable GPU{why}" if broken else
                       "the NVIDIA driver is loaded but reports no GPU")
        session = cls(module, handles, "")
        session.lost.update(broken)
        session.no_handle = broken
        return session

    @property
    def available(self) -> bool:
        return bool(self.handles)

    @property
    def device_count(self) -> int:
        return len(self.handles)

    def close(self) -> None:
        if self.module is not None:
            _shutdown(self.module)
            self.module = None

    def __enter__(self) -> "Nvml":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def has(self, names: Names) -> bool:
        return self.function(names) is not None

    def function(self, names: Names):
        if self.module is None:
            return None
        for name in (names,) if isinstance(names, str) else names:
            fn = getattr(self.module, name, None)
            if fn is not None:
                return fn
        return None

    def constant(self, name: str, default: Any) -> Any:
        return getattr(self.module, name, default) if self.module is not None else default

    # --- calls ---------------------------------------------------------------------------------
    def attempt(self, names: Names, *args: Any) -> tuple[Any, str]:
        """(value, "") or (None, why): nvml.<name>(*args)."""
        fn = self.function(names)
        if fn is None:
            return None, ("no NVML session" if self.module is None else
                          f"this nvidia-ml-py has no {names if isinstance(names, str) else names[0]}")
        try:
            return text(fn(*args)), ""
        except Exception as exc:
            return None, error_text(getattr(exc, "value", None)) if hasattr(exc, "value") else describe(exc)

    def call(self, names: Names, *args: Any) -> Any:
        """nvml.<name>(*args), or None when it fails for any reason."""
        return self.attempt(names, *args)[0]

    def device_attempt(self, index: int, names: Names, *args: Any) -> tuple[Any, str]:
        """(value, "") or (None, why) for nvml.<name>(handle of device `index`, *args), with the lost-GPU rule."""
        if index in self.lost:
            return None, f"no handle: {self.no_handle[index]}" if index in self.no_handle else "GPU is lost"
        if not 0 <= index < len(self.handles):
            return None, f"no GPU {index}"
        fn = self.function(names)
        if fn is None:
            return None, ("no NVML session" if self.module is None else
                          f"this nvidia-ml-py has no {names if isinstance(names, str) else names[0]}")
        try:
            return text(fn(self.handles[index], *args)), ""
        except Exception as exc:
            code = getattr(exc, "value", None)
            if code == GPU_IS_LOST:
                self.lost.add(index)
            return None, error_text(code) if hasattr(exc, "value") else describe(exc)

    def device_call(self, index: int, names: Names, *args: Any) -> Any:
        return self.device_attempt(index, names, *args)[0]

    def device_reader(self, index: int, names: Names) -> Callable[..., Any]:
        """nvml.<name> bound to device `index` for a sampler's hot path: the function and handle are looked
        up once, and a call answers the value or None (marking the device lost on GPU_IS_LOST), like
        `device_call`, at the cost of one Python frame. Numbers only: no bytes-to-str conversion."""
        fn = self.function(names)
        if fn is None or index in self.lost or not 0 <= index < len(self.handles):
            return _none
        handle = self.handles[index]
        lost = self.lost

        def read(*args: Any) -> Any:
            if index in lost:
                return None
            try:
                return fn(handle, *args)
            except Exception as exc:
                if getattr(exc, "value", None) == GPU_IS_LOST:
                    lost.add(index)
                return None
        return read


def _none(*_args: Any) -> None:
    return None


def text(value: Any) -> Any:
    """bytes (older nvidia-ml-py) to str; anything else unchanged."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value


def describe(exc: Exception) -> str:
    message = str(exc).strip() or type(exc).__name__
    return message.splitlines()[0]


def _shutdown(module: Any) -> None:
    try:
        module.nvmlShutdown()
    except Exception:
        pass


def device_count() -> int:
    """GPUs NVML sees (0 with no driver or no nvidia-ml-py)."""
    with Nvml.open() as session:
        return session.device_count
