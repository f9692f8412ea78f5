// RUN: kda-opt %s --convert-tile-to-cpu -verify-diagnostics

func.func @dynamic_temporary(%n: index) attributes {tile.kernel} {
  // expected-error @+1 {{tile temporaries must be statically shaped}}
  %t = memref.alloc(%n) : memref<?xf32>
  return
}
