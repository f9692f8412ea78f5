// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

// A bufferized kernel becomes a gpu.func of 64 threads: program ids become
// block ids, shared allocations become workgroup attributions, each linalg
// op is strided over the threads (with barriers where one op reads what
// another thread wrote: the tile store moves 16-byte pieces of four
// elements, which other threads computed), and the launch becomes
// gpu.launch_func.

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: func.func @host(%[[IN:.*]]: memref<?x32xf32>, %[[OUT:.*]]: memref<?x32xf32>, %[[N:.*]]: index)
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: gpu.launch_func @scale_module::@scale blocks in (%[[N]], %{{.*}}, %{{.*}}) threads in (%[[C64]], %{{.*}}, %{{.*}}) args(%[[IN]] : memref<?x32xf32>, %[[OUT]] : memref<?x32xf32>)
// CHECK: gpu.module @scale_module
// CHECK: gpu.func @scale(%[[A:.*]]: memref<?x32xf32>, %[[B:.*]]: memref<?x32xf32>)
// CHECK-SAME: workgroup(%[[SHARED:.*]] : memref<2304xi8, #gpu.address_space<workgroup>> {llvm.align = 128 : i64})
// CHECK-SAME: kernel attributes {known_block_size = array<i32: 64, 1, 1>, tile.tuning = #tile.tuning<threads = 64>}
// CHECK: %[[PID:.*]] = gpu.block_id x
// CHECK: %[[ROWS:.*]] = memref.view %[[SHARED]][%{{.*}}][] : memref<2304xi8, #gpu.address_space<workgroup>> to memref<16x36xf32, #gpu.address_space<workgroup>>
// CHECK: %[[TILE:.*]] = memref.subview %[[ROWS]][0, 0] [16, 32] [1, 1]
// The 16 x 32 tile over 64 threads, 4 consecutive elements per thread and
// step: thread tid takes the groups tid and tid + 64 of the 128 groups (8
// per row), i.e. row tid / 8, columns 4 (tid mod 8) .. + 3, then 8 rows
// further down. The global input is read element by element (its alignment
// is not known), the shared tile written by one 16-byte vector store per
// step.
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[G:.*]] = arith.remui %[[TID]], %c8 : index
// CHECK: %[[ROW:.*]] = arith.divui %[[TID]], %c8 : index
// CHECK: %[[COL:.*]] = arith.muli %[[G]], %c4 : index
// CHECK: %[[X:.*]] = memref.load %{{.*}}[%[[ROW]], %[[COL]]] : memref<16x32xf32, strided<[32, 1], offset: ?>>
// CHECK-COUNT-3: memref.load
// CHECK: math.exp %[[X]]
// CHECK-COUNT-3: math.exp
// CHECK: %[[V:.*]] = vector.from_elements
// CHECK: vector.store %[[V]], %[[TILE]][%[[ROW]], %[[COL]]] {alignment = 16 : i64}
// CHECK: arith.addi %[[TID]], %c64 : index
// CHECK-COUNT-4: math.exp
// CHECK: vector.store
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: vector.load %[[TILE]]
// CHECK: vector.store %{{.*}} : memref<16x32xf32, strided<[32, 1], offset: ?>>, vector<4xf32>
// CHECK: } else {
// CHECK: memref.load %[[TILE]]
// CHECK: memref.store %{{.*}} : memref<16x32xf32, strided<[32, 1], offset: ?>>
// CHECK: gpu.barrier
// CHECK: gpu.return
// CHECK-NOT: func.func @scale
func.func @host(%in: memref<?x32xf32>, %out: memref<?x32xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  tile.launch @scale grid [%n, %c1, %c1] args(%in, %out : memref<?x32xf32>, memref<?x32xf32>)
  return
}
func.func @scale(%a: memref<?x32xf32>, %b: memref<?x32xf32>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64>} {
  %pid = tile.program_id x
  %c16 = arith.constant 16 : index
  %row = arith.muli %pid, %c16 : index
  %tile = memref.alloc() : memref<16x32xf32, #gpu.address_space<workgroup>>
  %src = memref.subview %a[%row, 0] [16, 32] [1, 1] : memref<?x32xf32> to memref<16x32xf32, strided<[32, 1], offset: ?>>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%src : memref<16x32xf32, strided<[32, 1], offset: ?>>) outs(%tile : memref<16x32xf32, #gpu.address_space<workgroup>>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  %dst = memref.subview %b[%row, 0] [16, 32] [1, 1] : memref<?x32xf32> to memref<16x32xf32, strided<[32, 1], offset: ?>>
  linalg.copy ins(%tile : memref<16x32xf32, #gpu.address_space<workgroup>>) outs(%dst : memref<16x32xf32, strided<[32, 1], offset: ?>>)
  return
}

// -----

// Reduction dimensions run inside each thread; a reduction written with
// the reduced dimension first is interchanged so the parallel one is split.

// CHECK-LABEL: gpu.func @colsum
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// The 32 columns over 128 threads: threads 0 .. 31 take one each.
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[SLOT:.*]] = arith.divui %[[TID]], %c32 : index
// CHECK: %[[COL:.*]] = arith.remui %[[TID]], %c32 : index
// CHECK: %[[FIRST:.*]] = arith.cmpi ult, %[[SLOT]], %c1 : index
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: scf.for %[[ROW:.*]] = %c0 to %c64 step %c1 {
// CHECK: memref.load %{{.*}}[%[[ROW]], %[[COL]]] : memref<64x32xf32>
// CHECK: arith.addf
// CHECK: gpu.barrier
func.func @colsum(%a: memref<64x32xf32>, %b: memref<32xf32>) attributes {tile.kernel} {
  linalg.generic {indexing_maps = [affine_map<(r, c) -> (r, c)>, affine_map<(r, c) -> (c)>], iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<64x32xf32>) outs(%b : memref<32xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A full reduction has no parallel loop: thread 0 runs it.

// CHECK-LABEL: gpu.func @total
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %{{.*}} : index
// CHECK: scf.if %[[FIRST]] {
// CHECK: scf.for
// CHECK: gpu.barrier
func.func @total(%a: memref<64xf32>, %b: memref<f32>) attributes {tile.kernel} {
  linalg.generic {indexing_maps = [affine_map<(r) -> (r)>, affine_map<(r) -> ()>], iterator_types = ["reduction"]}
      ins(%a : memref<64xf32>) outs(%b : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Tile temporaries share shared memory when their lives do not overlap:
// %t1 dies before %t2 is written, so both views start at offset 0 (one
// view once CSE has run), and a buffer used inside a loop stays live for
// the whole loop.

// CHECK-LABEL: gpu.func @reuse
// CHECK-SAME: workgroup(%[[S:.*]] : memref<8192xi8, #gpu.address_space<workgroup>> {llvm.align = 128 : i64})
// CHECK: %[[T1:.*]] = memref.view %[[S]][%c0{{[_0-9]*}}][] : {{.*}} to memref<64x16xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.view %[[S]][%c0
// CHECK: memref.view %[[S]][%c4096{{[_0-9]*}}][] : {{.*}} to memref<64x16xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for
// CHECK: nvgpu.device_async_copy %{{.*}}, %[[T1]]
func.func @reuse(%a: memref<64x16xf32>, %b: memref<64x16xf32>, %n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t1 = memref.alloc() : memref<64x16xf32, #gpu.address_space<workgroup>>
  linalg.copy ins(%a : memref<64x16xf32>) outs(%t1 : memref<64x16xf32, #gpu.address_space<workgroup>>)
  linalg.copy ins(%t1 : memref<64x16xf32, #gpu.address_space<workgroup>>) outs(%b : memref<64x16xf32>)
  %t2 = memref.alloc() : memref<64x16xf32, #gpu.address_space<workgroup>>
  %t3 = memref.alloc() : memref<64x16xf32, #gpu.address_space<workgroup>>
  scf.for %i = %c0 to %n step %c1 {
    linalg.copy ins(%a : memref<64x16xf32>) outs(%t2 : memref<64x16xf32, #gpu.address_space<workgroup>>)
    linalg.copy ins(%t2 : memref<64x16xf32, #gpu.address_space<workgroup>>) outs(%t3 : memref<64x16xf32, #gpu.address_space<workgroup>>)
    linalg.copy ins(%t3 : memref<64x16xf32, #gpu.address_space<workgroup>>) outs(%b : memref<64x16xf32>)
  }
  return
}

// -----

// A buffer's life starts at its first use, not at its allocation: %late is
// allocated before the loop but first written after it, so it takes the
// bytes the loop's %inner used (offset 0); %carried (used before, in and
// after the loop) keeps its own.

// CHECK-LABEL: gpu.func @late_first_use
// CHECK-SAME: workgroup(%[[S:.*]] : memref<8192xi8, #gpu.address_space<workgroup>> {llvm.align = 128 : i64})
// CHECK-DAG: memref.view %[[S]][%c0{{[_0-9]*}}][] : {{.*}} to memref<64x16xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: memref.view %[[S]][%c4096{{[_0-9]*}}][] : {{.*}} to memref<64x16xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.view
// CHECK: gpu.return
func.func @late_first_use(%a: memref<64x16xf32>, %b: memref<64x16xf32>, %n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %carried = memref.alloc() : memref<64x16xf32, #gpu.address_space<workgroup>>
  %late = memref.alloc() : memref<64x16xf32, #gpu.address_space<workgroup>>
  %inner = memref.alloc() : memref<64x16xf32, #gpu.address_space<workgroup>>
  linalg.copy ins(%a : memref<64x16xf32>) outs(%carried : memref<64x16xf32, #gpu.address_space<workgroup>>)
  scf.for %i = %c0 to %n step %c1 {
    linalg.copy ins(%a : memref<64x16xf32>) outs(%inner : memref<64x16xf32, #gpu.address_space<workgroup>>)
    linalg.add ins(%carried, %inner : memref<64x16xf32, #gpu.address_space<workgroup>>, memref<64x16xf32, #gpu.address_space<workgroup>>) outs(%carried : memref<64x16xf32, #gpu.address_space<workgroup>>)
  }
  linalg.copy ins(%carried : memref<64x16xf32, #gpu.address_space<workgroup>>) outs(%late : memref<64x16xf32, #gpu.address_space<workgroup>>)
  linalg.copy ins(%late : memref<64x16xf32, #gpu.address_space<workgroup>>) outs(%b : memref<64x16xf32>)
  return
}

// -----

// Above 48 KB the kernel switches to dynamic shared memory, and its launch
// asks for the bytes (128 rows of 128 f32, padded to 132: 67584).

// CHECK-LABEL: func.func @big_host
// CHECK: %[[BYTES:.*]] = arith.constant 67584 : i32
// CHECK: gpu.launch_func @big_module::@big blocks in ({{.*}}) threads in ({{.*}}) dynamic_shared_memory_size %[[BYTES]]
// CHECK-LABEL: gpu.func @big
// CHECK-NOT: workgroup(
// CHECK: %[[DYN:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[DYN]]
func.func @big_host(%a: memref<128x128xf32>) {
  %c1 = arith.constant 1 : index
  tile.launch @big grid [%c1, %c1, %c1] args(%a : memref<128x128xf32>)
  return
}
func.func @big(%a: memref<128x128xf32>) attributes {tile.kernel} {
  %t = memref.alloc() : memref<128x128xf32, #gpu.address_space<workgroup>>
  linalg.copy ins(%a : memref<128x128xf32>) outs(%t : memref<128x128xf32, #gpu.address_space<workgroup>>)
  linalg.copy ins(%t : memref<128x128xf32, #gpu.address_space<workgroup>>) outs(%a : memref<128x128xf32>)
  return
}

// -----

// A buffer that flows through a loop's iteration arguments can be read
// through values the live-range walk does not follow: it keeps its bytes
// for the whole kernel, so %late (written after the loop) gets its own.

// CHECK-LABEL: gpu.func @escapes
// CHECK-SAME: workgroup(%[[S:.*]] : memref<8192xi8, #gpu.address_space<workgroup>> {llvm.align = 128 : i64})
// CHECK-DAG: memref.view %[[S]][%c0{{[_0-9]*}}][]
// CHECK-DAG: memref.view %[[S]][%c4096{{[_0-9]*}}][]
func.func @escapes(%a: memref<64x16xf32>, %n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = memref.alloc() : memref<64x16xf32, #gpu.address_space<workgroup>>
  linalg.copy ins(%a : memref<64x16xf32>) outs(%init : memref<64x16xf32, #gpu.address_space<workgroup>>)
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (memref<64x16xf32, #gpu.address_space<workgroup>>) {
    scf.yield %acc : memref<64x16xf32, #gpu.address_space<workgroup>>
  }
  %late = memref.alloc() : memref<64x16xf32, #gpu.address_space<workgroup>>
  linalg.copy ins(%r : memref<64x16xf32, #gpu.address_space<workgroup>>) outs(%late : memref<64x16xf32, #gpu.address_space<workgroup>>)
  linalg.copy ins(%late : memref<64x16xf32, #gpu.address_space<workgroup>>) outs(%a : memref<64x16xf32>)
  return
}

// -----

// An elementwise op whose input dies there writes its output into the
// input's bytes (same storage type): each thread reads an element before it
// writes it, and no other thread touches it. %x (f32) and %y (bf16) are
// read by the op; %y2 takes %y's bytes, so the kernel needs 4608 (%x, rows
// padded to 36 f32) + 2048 (%y, then %y2) bytes.
// CHECK-LABEL: gpu.func @in_place
// CHECK-SAME: workgroup(%[[S:.*]] : memref<6656xi8, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[S]][%c0][] : {{.*}} to memref<32x36xf32, #gpu.address_space<workgroup>>
// CHECK: %[[Y:.*]] = memref.view %[[S]][%c4608][] : {{.*}} to memref<32x32xbf16, #gpu.address_space<workgroup>>
// (the views of %y and %y2 are one value after CSE)
// CHECK-NOT: memref.view
// CHECK: %[[V:.*]] = vector.load %[[Y]][%[[I:.*]], %[[J:.*]]] {alignment = 8 : i64} : memref<32x32xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
// CHECK: vector.store %{{.*}}, %[[Y]][%[[I]], %[[J]]] {alignment = 8 : i64} : memref<32x32xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
func.func @in_place(%a: memref<32x32xf32>, %b: memref<32x32xbf16>, %o: memref<32x32xbf16>) attributes {tile.kernel} {
  %x = memref.alloc() : memref<32x32xf32, #gpu.address_space<workgroup>>
  %y = memref.alloc() : memref<32x32xbf16, #gpu.address_space<workgroup>>
  linalg.copy ins(%a : memref<32x32xf32>) outs(%x : memref<32x32xf32, #gpu.address_space<workgroup>>)
  linalg.copy ins(%b : memref<32x32xbf16>) outs(%y : memref<32x32xbf16, #gpu.address_space<workgroup>>)
  %y2 = memref.alloc() : memref<32x32xbf16, #gpu.address_space<workgroup>>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : memref<32x32xf32, #gpu.address_space<workgroup>>, memref<32x32xbf16, #gpu.address_space<workgroup>>) outs(%y2 : memref<32x32xbf16, #gpu.address_space<workgroup>>) {
  ^bb0(%p: f32, %q: bf16, %r: bf16):
    %e = arith.extf %q : bf16 to f32
    %m = arith.mulf %p, %e : f32
    %t = arith.truncf %m : f32 to bf16
    linalg.yield %t : bf16
  }
  linalg.copy ins(%y2 : memref<32x32xbf16, #gpu.address_space<workgroup>>) outs(%o : memref<32x32xbf16>)
  return
}

// -----

// The same op when its input is read again afterwards: the output needs
// bytes of its own (4608 + 2048 + 2048).
// CHECK-LABEL: gpu.func @not_in_place_input_read_later
// CHECK-SAME: workgroup(%{{.*}} : memref<8704xi8, #gpu.address_space<workgroup>>
func.func @not_in_place_input_read_later(%a: memref<32x32xf32>, %b: memref<32x32xbf16>, %o: memref<32x32xbf16>, %o2: memref<32x32xbf16>) attributes {tile.kernel} {
  %x = memref.alloc() : memref<32x32xf32, #gpu.address_space<workgroup>>
  %y = memref.alloc() : memref<32x32xbf16, #gpu.address_space<workgroup>>
  linalg.copy ins(%a : memref<32x32xf32>) outs(%x : memref<32x32xf32, #gpu.address_space<workgroup>>)
  linalg.copy ins(%b : memref<32x32xbf16>) outs(%y : memref<32x32xbf16, #gpu.address_space<workgroup>>)
  %y2 = memref.alloc() : memref<32x32xbf16, #gpu.address_space<workgroup>>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : memref<32x32xf32, #gpu.address_space<workgroup>>, memref<32x32xbf16, #gpu.address_space<workgroup>>) outs(%y2 : memref<32x32xbf16, #gpu.address_space<workgroup>>) {
  ^bb0(%p: f32, %q: bf16, %r: bf16):
    %e = arith.extf %q : bf16 to f32
    %m = arith.mulf %p, %e : f32
    %t = arith.truncf %m : f32 to bf16
    linalg.yield %t : bf16
  }
  linalg.copy ins(%y2 : memref<32x32xbf16, #gpu.address_space<workgroup>>) outs(%o : memref<32x32xbf16>)
  linalg.copy ins(%y : memref<32x32xbf16, #gpu.address_space<workgroup>>) outs(%o2 : memref<32x32xbf16>)
  return
}

// -----

// A transposing op (a permuted map) may not write in place: another thread
// reads the element it would overwrite (2 x 4608 bytes).
// CHECK-LABEL: gpu.func @not_in_place_transposed
// CHECK-SAME: workgroup(%{{.*}} : memref<9216xi8, #gpu.address_space<workgroup>>
func.func @not_in_place_transposed(%a: memref<32x32xf32>, %o: memref<32x32xf32>) attributes {tile.kernel} {
  %x = memref.alloc() : memref<32x32xf32, #gpu.address_space<workgroup>>
  linalg.copy ins(%a : memref<32x32xf32>) outs(%x : memref<32x32xf32, #gpu.address_space<workgroup>>)
  %t = memref.alloc() : memref<32x32xf32, #gpu.address_space<workgroup>>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<32x32xf32, #gpu.address_space<workgroup>>) outs(%t : memref<32x32xf32, #gpu.address_space<workgroup>>) {
  ^bb0(%p: f32, %r: f32):
    linalg.yield %p : f32
  }
  linalg.copy ins(%t : memref<32x32xf32, #gpu.address_space<workgroup>>) outs(%o : memref<32x32xf32>)
  return
}

// -----

// Each kernel gets a gpu.module of its own, named after it, so that the
// passes nested on gpu.module and the code generation of
// kda-serialize-gpu-modules work on the kernels side by side; each launch
// names its kernel's module.
// CHECK-LABEL: func.func @two_kernels_host
// CHECK: gpu.launch_func @first_module::@first
// CHECK: gpu.launch_func @second_module::@second
// CHECK: gpu.module @first_module {
// CHECK-NEXT: gpu.func @first(
// CHECK-NOT: gpu.func
// CHECK: gpu.module @second_module {
// CHECK-NEXT: gpu.func @second(
// CHECK-NOT: gpu.func
func.func @two_kernels_host(%a: memref<4xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  tile.launch @first grid [%n, %c1, %c1] args(%a : memref<4xf32>)
  tile.launch @second grid [%n, %c1, %c1] args(%a : memref<4xf32>)
  return
}
func.func @first(%a: memref<4xf32>) attributes {tile.kernel} {
  return
}
func.func @second(%a: memref<4xf32>) attributes {tile.kernel} {
  return
}
