"""A host that refuses Linux namespaces, as a container without CAP_SYS_ADMIN or Ubuntu's AppArmor rule on
unprivileged user namespaces does: a seccomp filter, installed in the child before it runs the command,
makes `unshare` and `setns` fail with EPERM for it and everything it starts. Nothing else is refused."""

import ctypes
import errno
import platform
import struct

_LD_W_ABS, _JEQ, _RET = 0x20, 0x15, 0x06
_RET_ALLOW, _RET_ERRNO = 0x7FFF0000, 0x00050000
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2
# unshare, setns: (x86_64, aarch64) system call numbers
_REFUSED = {"x86_64": (272, 308), "aarch64": (97, 268)}


class _Fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k & 0xFFFFFFFF)


def refuse_namespaces() -> None:
    """A `preexec_fn`: from here on this process and its children cannot make or enter namespaces."""
    program = [_insn(_LD_W_ABS, 0, 0, 0)]  # seccomp_data.nr
    for number in _REFUSED[platform.machine()]:
        program += [_insn(_JEQ, 0, 1, number), _insn(_RET, 0, 0, _RET_ERRNO | errno.EPERM)]
    program.append(_insn(_RET, 0, 0, _RET_ALLOW))
    code = b"".join(program)
    buffer = ctypes.create_string_buffer(code, len(code))
    fprog = _Fprog(len(program), ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) or libc.prctl(
            _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0):
        raise OSError(ctypes.get_errno(), "seccomp filter")
