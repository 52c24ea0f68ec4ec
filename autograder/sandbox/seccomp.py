"""A seccomp filter, written as raw BPF: no library to install, nothing to load but prctl.

It refuses the system calls a submission has no business making: creating sockets (so no network even
where network namespaces are missing), namespaces and mounts (so it cannot rebuild its view of the
filesystem), tracing other processes, loading kernel code, io_uring (which would bypass the filter).
Everything else is allowed: NumPy needs the ordinary ones. Once installed it cannot be removed.
"""

import ctypes
import errno
import os
import platform
import struct
from collections.abc import Callable

# BPF opcodes and seccomp constants from <linux/filter.h>, <linux/seccomp.h>, <linux/audit.h>.
_LD_W_ABS, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_RET_ALLOW, _RET_ERRNO, _RET_KILL = 0x7FFF0000, 0x00050000, 0x80000000
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2
_NAMESPACE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000

# name: (x86_64, aarch64) syscall numbers.
_DENIED = {
    "socket": (41, 198), "socketpair": (53, 199), "ptrace": (101, 117), "mount": (165, 40),
    "umount2": (166, 39), "pivot_root": (155, 41), "chroot": (161, 51), "unshare": (272, 97),
    "setns": (308, 268), "process_vm_readv": (310, 270), "process_vm_writev": (311, 271),
    "kexec_load": (246, 104), "init_module": (175, 105), "finit_module": (313, 273),
    "delete_module": (176, 106), "bpf": (321, 280), "perf_event_open": (298, 241),
    "keyctl": (250, 219), "add_key": (248, 217), "request_key": (249, 218), "userfaultfd": (323, 282),
    "io_uring_setup": (425, 425), "io_uring_enter": (426, 426), "io_uring_register": (427, 427),
    "open_by_handle_at": (304, 265), "name_to_handle_at": (303, 264), "reboot": (169, 142),
    "swapon": (167, 224), "swapoff": (168, 225), "syslog": (103, 116), "acct": (163, 89),
    "fsopen": (430, 430), "fsmount": (432, 432), "move_mount": (429, 429), "open_tree": (428, 428),
    "mount_setattr": (442, 442),
}
_CLONE = (56, 220)
_CLONE3 = (435, 435)
_ARCHES = {"x86_64": (0, 0xC000003E), "aarch64": (1, 0xC00000B7)}


def supported() -> bool:
    return platform.system() == "Linux" and platform.machine() in _ARCHES


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k & 0xFFFFFFFF)


def program() -> bytes:
    column, audit_arch = _ARCHES[platform.machine()]
    deny = _RET_ERRNO | errno.EPERM
    insns = [
        _insn(_LD_W_ABS, 0, 0, 4),  # seccomp_data.arch
        _insn(_JEQ, 1, 0, audit_arch),
        _insn(_RET, 0, 0, _RET_KILL),  # another ABI (int 0x80) would bypass the numbers below
        _insn(_LD_W_ABS, 0, 0, 0),  # seccomp_data.nr
    ]
    if column == 0:  # x32 system calls are numbered from 0x40000000
        insns += [_insn(_JGE, 0, 1, 0x40000000), _insn(_RET, 0, 0, deny)]
    for numbers in _DENIED.values():
        insns += [_insn(_JEQ, 0, 1, numbers[column]), _insn(_RET, 0, 0, deny)]
    # clone3 passes its flags in memory the filter cannot read: say it does not exist, glibc falls back.
    insns += [_insn(_JEQ, 0, 1, _CLONE3[column]), _insn(_RET, 0, 0, _RET_ERRNO | errno.ENOSYS)]
    # clone: threads and fork are fine, new namespaces are not (flags are its first argument).
    insns += [
        _insn(_JEQ, 0, 3, _CLONE[column]),
        _insn(_LD_W_ABS, 0, 0, 16),  # low 32 bits of args[0]
        _insn(_JSET, 0, 1, _NAMESPACE_FLAGS),
        _insn(_RET, 0, 0, deny),
        _insn(_RET, 0, 0, _RET_ALLOW),
    ]
    return b"".join(insns)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def prepare() -> Callable[[], None]:
    """Build the filter now (in the zygote), so a child only pays for two prctl calls."""
    libc = ctypes.CDLL(None, use_errno=True)
    code = program()
    buffer = ctypes.create_string_buffer(code, len(code))
    fprog = _SockFprog(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))

    def install() -> None:
        """Apply the filter to the calling thread and its future children (requires no privileges)."""
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
        if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"prctl(PR_SET_SECCOMP): {os.strerror(err)}")

    install.keep = (buffer, fprog)  # the buffer must outlive every call
    return install
