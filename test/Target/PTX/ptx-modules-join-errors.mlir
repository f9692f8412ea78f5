// RUN: split-file %s %t
// RUN: kda-translate %t/shared.mlir --kda-to-ptx | FileCheck %s --check-prefix=SHARED
// RUN: not kda-translate %t/conflict.mlir --kda-to-ptx 2>&1 | FileCheck %s --check-prefix=CONFLICT
// RUN: not kda-translate %t/headers.mlir --kda-to-ptx 2>&1 | FileCheck %s --check-prefix=HEADERS
// RUN: not kda-translate %t/noheader.mlir --kda-to-ptx 2>&1 | FileCheck %s --check-prefix=NOHEADER

// kda-translate joins the PTX modules of a program's gpu.binary ops (one
// per kernel) into one file: one header, each module-scope declaration
// once. Modules that cannot share a file are an error, not a file ptxas
// would reject.

// SHARED: .version 8.0
// SHARED-NEXT: .target sm_90
// SHARED-NEXT: .address_size 64
// SHARED: .global .align 4 .b8 table[4];
// SHARED: .visible .entry a()
// SHARED-NOT: .version
// SHARED-NOT: table[4];
// SHARED: .visible .entry b()

// CONFLICT: error: cannot join the kernels' PTX: PTX modules declare 'table' differently: '.global .align 4 .b8 table[4];' and '.global .align 4 .b8 table[8];'

// HEADERS: error: cannot join the kernels' PTX: PTX module 1 has the header '.version 8.0 .target sm_80 .address_size 64', module 0 '.version 8.0 .target sm_90 .address_size 64'

// NOHEADER: error: cannot join the kernels' PTX: PTX module 1 has no .version/.target/.address_size header

//--- shared.mlir
module attributes {gpu.container_module} {
  gpu.binary @a [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "//\0A.version 8.0\0A.target sm_90\0A.address_size 64\0A\0A.global .align 4 .b8 table[4];\0A.visible .entry a()\0A{\0A\0Aret;\0A}\0A">]
  gpu.binary @b [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "//\0A.version 8.0\0A.target sm_90\0A.address_size 64\0A\0A.global .align 4 .b8 table[4];\0A.visible .entry b()\0A{\0A\0Aret;\0A}\0A">]
}

//--- conflict.mlir
module attributes {gpu.container_module} {
  gpu.binary @a [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "//\0A.version 8.0\0A.target sm_90\0A.address_size 64\0A\0A.global .align 4 .b8 table[4];\0A.visible .entry a()\0A{\0A\0Aret;\0A}\0A">]
  gpu.binary @b [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "//\0A.version 8.0\0A.target sm_90\0A.address_size 64\0A\0A.global .align 4 .b8 table[8];\0A.visible .entry b()\0A{\0A\0Aret;\0A}\0A">]
}

//--- headers.mlir
module attributes {gpu.container_module} {
  gpu.binary @a [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "//\0A.version 8.0\0A.target sm_90\0A.address_size 64\0A\0A.visible .entry a()\0A{\0A\0Aret;\0A}\0A">]
  gpu.binary @b [#gpu.object<#nvvm.target<chip = "sm_80">, assembly = "//\0A.version 8.0\0A.target sm_80\0A.address_size 64\0A\0A.visible .entry b()\0A{\0A\0Aret;\0A}\0A">]
}

//--- noheader.mlir
module attributes {gpu.container_module} {
  gpu.binary @a [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "//\0A.version 8.0\0A.target sm_90\0A.address_size 64\0A\0A.visible .entry a()\0A{\0A\0Aret;\0A}\0A">]
  gpu.binary @b [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = ".visible .entry b()\0A{\0A\0Aret;\0A}\0A">]
}
