package child

import "syscall"

var syscallZero = syscall.Signal(0)
