/*===- kda_bundle_checksum.h - the checksum of a bundle section ----------===*
 *
 * The 64-bit FNV-1a hash that a bundle's `checksums` section lists for each
 * of its other sections. Header-only C, shared by the compiler that writes
 * bundles and the runtime that reads them, so that the two cannot disagree.
 *
 *===----------------------------------------------------------------------===*/

#ifndef KDA_BUNDLE_CHECKSUM_H
#define KDA_BUNDLE_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t kda_bundle_checksum(const void *data, size_t size) {
  const unsigned char *p = (const unsigned char *)data;
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

#endif /* KDA_BUNDLE_CHECKSUM_H */
