/*===- DefaultBundles.h - the bundles embedded in the library -----*- C -*-===*\
|*                                                                            *|
|* The table that cmake/KDAEmbedBundles.cmake generates: one row per default  *|
|* bundle compiled into libkda_runtime (name, first byte, one past the last). *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef KDA_RUNTIME_LIB_DEFAULTBUNDLES_H
#define KDA_RUNTIME_LIB_DEFAULTBUNDLES_H

#ifdef __cplusplus
extern "C" {
#endif

struct kda_default_bundle {
  const char *name;
  const unsigned char *begin;
  const unsigned char *end;
};

extern const struct kda_default_bundle kda_default_bundles[];
extern const int kda_num_default_bundles;

#ifdef __cplusplus
}
#endif

#endif /* KDA_RUNTIME_LIB_DEFAULTBUNDLES_H */
