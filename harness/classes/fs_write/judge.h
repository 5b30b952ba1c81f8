// The fs_write family's judges, one factory each; fs_write.def names each class's (attempt/oracle_table.cc).
#pragma once

#include <memory>

namespace breakout {

class Oracle;

namespace oracles {

std::unique_ptr<Oracle> fs_write();      // fs-write (with the path form's excuse)
std::unique_ptr<Oracle> plain_write();   // io-uring-write
std::unique_ptr<Oracle> abi_write();     // syscall-abi-write (N/A where the host lacks the ABI)
std::unique_ptr<Oracle> cwd_write();     // cwd-write: the exec's cwd is the target directory
std::unique_ptr<Oracle> protected_write();  // protected-write (deny_write wins over the roots)
std::unique_ptr<Oracle> submount_write();  // submount-write: a harness tmpfs in the tree, diffed too (submount.cc)

}  // namespace oracles
}  // namespace breakout
