; A module of globals alone: llc-19 writes PTX without functions, and the plan is empty
; (`fmtstr abi --check` agrees rather than refusing the PTX).
target triple = "nvptx64-nvidia-cuda"

@counter = addrspace(1) global i32 0, align 4
@table = internal addrspace(4) constant [2 x i64] [i64 1, i64 2], align 8
