//===- BundleTests.cpp - the bundle container and manifest ----------------===//

#include "TestBundles.h"
#include "Tests.h"

#include "kda/Runtime/Bundle.h"
#include "kda_bundle_checksum.h"

#include <cstdio>
#include <cstring>

namespace kda::rt::test {

namespace {

/// kFullManifest with the first occurrence of `from` replaced by `to`.
std::string edit(const std::string &from, const std::string &to,
                 const std::string &manifest = kFullManifest) {
  std::string m = manifest;
  size_t at = m.find(from);
  if (at == std::string::npos)
    return "!! edit target '" + from + "' not found";
  return m.replace(at, from.size(), to);
}

void expectManifestError(Harness &h, const std::string &name,
                         const std::string &manifest,
                         const std::string &needle) {
  Bundle b;
  h.expectError("manifest/" + name, Bundle::parse(makeBundle(manifest), b),
                ErrorCode::InvalidBundle, needle);
}

void containerTests(Harness &h) {
  std::string good = makeBundle(kFullManifest);
  Bundle b;
  Status s = Bundle::parse(good, b);
  h.expectOk("bundle/parse-full", s);
  if (s) {
    const Manifest &m = b.manifest;
    bool ok = m.abi == 1 && m.chip == "sm_90" && m.chipMajor == 9 &&
              m.chipMinor == 0 && !m.chipArchSpecific &&
              m.entry == "test_full" && m.keys.size() == 3 &&
              m.key("K") && *m.key("K") == "8" && !m.key("V") &&
              m.args.size() == 4 && m.numInputs == 3 && m.cuSeqlensArg == 2 &&
              m.symbols.size() == 5 && m.symbols[0] == "B" &&
              m.symbols[4] == "N1" && m.workspaces.size() == 2 &&
              m.kernels.size() == 1 && m.kernels[0].numParamWords == 51 &&
              m.kernels[0].sharedBytes == 65536 &&
              m.kernels[0].params.size() == 7 && !b.hasCubin && !b.hasCpu;
    h.record("bundle/parse-full-fields", ok);
  }

  h.expectError("bundle/bad-magic", Bundle::parse("\x7f" "ELF\x02\x01", b),
                ErrorCode::InvalidBundle, "not a kda bundle");
  h.expectError("bundle/empty", Bundle::parse("", b), ErrorCode::InvalidBundle,
                "not a kda bundle");
  h.expectError("bundle/abi-2",
                Bundle::parse(makeBundle({{"manifest", "abi 2"}}, 2), b),
                ErrorCode::UnsupportedAbi,
                "bundle ABI version 2 is not supported (this runtime "
                "implements ABI version 1)");
  h.expectError("bundle/bad-header", Bundle::parse("KDA-BUNDLE one\nend\n", b),
                ErrorCode::InvalidBundle, "bad bundle header");
  h.expectError("bundle/header-no-newline", Bundle::parse("KDA-BUNDLE 1", b),
                ErrorCode::InvalidBundle, "no complete header line");

  // Every strict prefix of a valid bundle is rejected (and nothing crashes).
  bool allRejected = true;
  std::string firstAccepted;
  for (size_t n = 0; n < good.size(); ++n) {
    Bundle p;
    if (Bundle::parse(std::string_view(good.data(), n), p)) {
      allRejected = false;
      firstAccepted = std::to_string(n);
      break;
    }
  }
  h.record("bundle/every-truncation-rejected", allRejected,
           allRejected ? std::to_string(good.size()) + " prefixes"
                       : "accepted a prefix of " + firstAccepted + " bytes");
  h.expectError("bundle/truncated-payload",
                Bundle::parse(good.substr(0, good.size() / 2), b),
                ErrorCode::InvalidBundle, "truncated bundle");
  h.expectError("bundle/missing-end",
                Bundle::parse(good.substr(0, good.size() - 4), b),
                ErrorCode::InvalidBundle, "missing 'end' line");
  h.expectError("bundle/size-past-end",
                Bundle::parse("KDA-BUNDLE 1\nsection ptx 1000\nabc\nend\n", b),
                ErrorCode::InvalidBundle,
                "truncated bundle: section 'ptx' declares 1000 bytes, only 8 "
                "remain");
  h.expectError("bundle/wrong-size",
                Bundle::parse("KDA-BUNDLE 1\nsection ptx 2\nabc\nend\n", b),
                ErrorCode::InvalidBundle,
                "section 'ptx' is not followed by a newline");
  h.expectError("bundle/bad-section-line",
                Bundle::parse("KDA-BUNDLE 1\nsection ptx\nend\n", b),
                ErrorCode::InvalidBundle, "bad section line 'section ptx'");
  h.expectError("bundle/bad-section-size",
                Bundle::parse("KDA-BUNDLE 1\nsection ptx -3\nend\n", b),
                ErrorCode::InvalidBundle, "bad section line");
  h.expectError("bundle/garbage-line",
                Bundle::parse("KDA-BUNDLE 1\nhello\nend\n", b),
                ErrorCode::InvalidBundle,
                "expected 'section <name> <size>' or 'end'");
  h.expectError("bundle/data-after-end", Bundle::parse(good + "x", b),
                ErrorCode::InvalidBundle, "1 bytes of data after the 'end' line");
  h.expectError("bundle/missing-manifest",
                Bundle::parse(makeBundle({{"ptx", ".version 8.0\n"}}), b),
                ErrorCode::InvalidBundle,
                "missing required section 'manifest'");
  h.expectError("bundle/missing-ptx",
                Bundle::parse(makeBundle({{"manifest", kScaleManifest}}), b),
                ErrorCode::InvalidBundle, "missing required section 'ptx'");
  h.expectError("bundle/duplicate-section",
                Bundle::parse(makeBundle({{"manifest", kScaleManifest},
                                          {"ptx", "x"},
                                          {"ptx", "y"}}),
                              b),
                ErrorCode::InvalidBundle, "duplicate section 'ptx'");
  {
    // 200,000 sections and a duplicate of the first at the end: found by a
    // parse linear in the bundle's size (with a scan of the names seen, a
    // fuzzing run reported 54 s for such a bundle).
    std::vector<std::pair<std::string, std::string>> many = {
        {"manifest", kScaleManifest}, {"ptx", "x"}};
    for (int i = 0; i < 200000; ++i)
      many.push_back({"extra" + std::to_string(i), ""});
    many.push_back({"extra0", ""});
    h.expectError("bundle/duplicate-among-many",
                  Bundle::parse(makeBundle(many), b), ErrorCode::InvalidBundle,
                  "duplicate section 'extra0'");
  }
  {
    // Checksums: verified before anything is used, covering every section.
    auto sum = [](const std::string &payload) {
      char hex[17];
      std::snprintf(hex, sizeof hex, "%016llx",
                    static_cast<unsigned long long>(kda_bundle_checksum(
                        payload.data(), payload.size())));
      return std::string(hex);
    };
    Bundle base;
    (void)Bundle::parse(makeBundle(kScaleManifest), base);
    const std::string ptx = base.ptx;
    auto withSums = [&](const std::string &sums) {
      return makeBundle({{"manifest", kScaleManifest},
                         {"ptx", ptx},
                         {"checksums", sums}});
    };
    const std::string good = "manifest " + sum(kScaleManifest) + "\nptx " +
                             sum(ptx) + "\n";
    Bundle ok;
    Status parsed = Bundle::parse(withSums(good), ok);
    h.record("bundle/checksums-verified", parsed && ok.checksummed,
             parsed ? "" : parsed.message());
    h.expectError("bundle/checksum-mismatch",
                  Bundle::parse(makeBundle({{"manifest", kScaleManifest},
                                            {"ptx", ptx + "\n"},
                                            {"checksums", good}}),
                                b),
                  ErrorCode::InvalidBundle,
                  "section 'ptx' does not match its checksum (the bundle is "
                  "damaged)");
    h.expectError("bundle/checksum-missing-section",
                  Bundle::parse(withSums("ptx " + sum(ptx) + "\n"), b),
                  ErrorCode::InvalidBundle,
                  "section 'manifest' has no checksum");
    h.expectError("bundle/checksum-unknown-section",
                  Bundle::parse(withSums(good + "cpu " + sum("") + "\n"), b),
                  ErrorCode::InvalidBundle,
                  "checksums line 3 names no section of the bundle: 'cpu'");
    h.expectError("bundle/checksum-twice",
                  Bundle::parse(withSums(good + "ptx " + sum(ptx) + "\n"), b),
                  ErrorCode::InvalidBundle,
                  "checksums list section 'ptx' twice");
    h.expectError("bundle/checksum-bad-line",
                  Bundle::parse(withSums("manifest 12ab\n"), b),
                  ErrorCode::InvalidBundle,
                  "checksums line 1 'manifest 12ab': expected '<section> <16 "
                  "lowercase hex digits>'");
  }
  h.expectError("bundle/nul-in-ptx",
                Bundle::parse(makeBundle({{"manifest", kScaleManifest},
                                          {"ptx", std::string("a\0b", 3)}}),
                              b),
                ErrorCode::InvalidBundle, "section 'ptx' contains a NUL byte");

  // Unknown sections are skipped; cubin and cpu are kept.
  std::string ptx = ptxEntry("test_scale_k", 18);
  s = Bundle::parse(makeBundle({{"manifest", kScaleManifest},
                                {"future", "whatever\n\n"},
                                {"ptx", ptx},
                                {"cubin", "\x7f" "ELF"},
                                {"cpu", std::string("\0\1", 2)}}),
                    b);
  h.record("bundle/unknown-section-skipped",
           s && b.sections.size() == 5 && b.sections[1] == "future" &&
               b.hasCubin && b.cubin == "\x7f" "ELF" && b.hasCpu &&
               b.cpu.size() == 2 && b.ptx == ptx,
           s.message());

  h.expectError("bundle/read-missing-file",
                Bundle::readFile("/nonexistent/x.kdab", b), ErrorCode::IoError,
                "cannot open '/nonexistent/x.kdab': No such file or directory");
  h.expectError("bundle/read-directory", Bundle::readFile("/", b),
                ErrorCode::IoError, "cannot read '/'");
}

void manifestTests(Harness &h) {
  expectManifestError(h, "not-abi-first", edit("abi 1\n", ""),
                      "manifest line 1: the manifest must start with 'abi "
                      "<version>'");
  expectManifestError(h, "abi-mismatch", edit("abi 1", "abi 2"),
                      "manifest line 1: abi 2 does not match the bundle "
                      "header's ABI version 1");
  expectManifestError(h, "abi-twice", edit("chip sm_90", "abi 1"),
                      "manifest line 2: duplicate 'abi'");
  expectManifestError(h, "bad-chip", edit("sm_90", "gfx90a"),
                      "manifest line 2: bad chip 'gfx90a'");
  expectManifestError(h, "missing-chip", edit("chip sm_90\n", ""),
                      "manifest line 2: 'entry' must follow 'chip'");
  expectManifestError(h, "missing-entry", edit("entry test_full\n", ""),
                      "manifest line 3: 'key' before 'entry'");
  expectManifestError(h, "unknown-statement", edit("key ", "keys "),
                      "manifest line 4: unknown statement 'keys'");
  expectManifestError(h, "double-space", edit("arg 0 q", "arg 0  q"),
                      "manifest line 5: tokens must be separated by single "
                      "spaces");
  expectManifestError(h, "trailing-space", edit("chunk=64", "chunk=64 "),
                      "manifest line 4: tokens must be separated by single "
                      "spaces");
  expectManifestError(h, "tab", edit("arg 0 q", "arg\t0 q"),
                      "manifest line 5: unexpected character (code 9)");
  expectManifestError(h, "carriage-return", edit("chip sm_90", "chip sm_90\r"),
                      "manifest line 2: unexpected character (code 13)");
  expectManifestError(h, "bad-key", edit("K=8", "K"),
                      "manifest line 4: bad key 'K': expected <name>=<value>");
  expectManifestError(h, "duplicate-key", edit("chunk=64", "chunk=64 K=9"),
                      "manifest line 4: duplicate key 'K'");
  expectManifestError(h, "key-after-arg",
                      edit("workspace scratch", "key x=1\nworkspace scratch"),
                      "manifest line 9: 'key' out of order");
  expectManifestError(h, "arg-index", edit("arg 1 g", "arg 2 g"),
                      "manifest line 6: arg index '2', expected 1");
  expectManifestError(h, "arg-fields", edit("arg 1 g input bf16", "arg 1 g bf16"),
                      "manifest line 6: expected 'arg <index> <name> <role> "
                      "<dtype> <dims>'");
  expectManifestError(h, "unknown-role", edit("g input", "g inout"),
                      "manifest line 6: unknown role 'inout'");
  expectManifestError(h, "unknown-dtype", edit("g input bf16", "g input f64"),
                      "manifest line 6: unknown dtype 'f64'");
  expectManifestError(h, "bad-dim", edit("B,T,HV,8", "B,T+1,HV,8"),
                      "manifest line 6: bad dimension 'T+1'");
  expectManifestError(h, "empty-dim", edit("B,T,HV,8", "B,,HV,8"),
                      "manifest line 6: bad dimension ''");
  expectManifestError(h, "input-after-output",
                      edit("workspace scratch",
                           "arg 4 z input f32 4\nworkspace scratch"),
                      "manifest line 9: input argument 'z' after an output");
  expectManifestError(h, "duplicate-arg", edit("arg 1 g", "arg 1 q"),
                      "manifest line 6: duplicate argument name 'q'");
  expectManifestError(h, "rank-9", edit("N1", "1,2,3,4,5,6,7,8,9"),
                      "manifest line 7: argument 'cu_seqlens' has rank 9 (at "
                      "most 8)");
  expectManifestError(h, "duplicate-workspace", edit("small 100", "scratch 100"),
                      "manifest line 10: duplicate workspace 'scratch'");
  expectManifestError(h, "workspace-bad-expr", edit("small 100", "small 1x"),
                      "manifest line 10: bad expression '1x'");
  expectManifestError(h, "missing-end-kernel", edit("end-kernel\n", ""),
                      "manifest: kernel 'test_full_k' has no 'end-kernel'");
  expectManifestError(h, "kernel-in-kernel",
                      edit("end-kernel\n", "kernel k2\n"),
                      "'kernel' inside kernel block 'test_full_k'");
  expectManifestError(h, "block-out-of-order",
                      edit("block 128 1 1\nshared 65536",
                           "shared 65536\nblock 128 1 1"),
                      "manifest line 12: 'shared' out of order in kernel "
                      "'test_full_k'");
  expectManifestError(h, "block-zero", edit("block 128 1 1", "block 0 1 1"),
                      "manifest line 12: bad block size '0'");
  expectManifestError(h, "block-too-many-threads",
                      edit("block 128 1 1", "block 128 16 1"),
                      "block 128x16x1 has 2048 threads (at most 1024)");
  expectManifestError(h, "shared-bad", edit("shared 65536", "shared 64K"),
                      "manifest line 13: bad shared memory size '64K'");
  expectManifestError(h, "grid-two", edit("dim(1,2) 1\n", "dim(1,2)\n"),
                      "manifest line 14: expected 'grid <x> <y> <z>'");
  expectManifestError(h, "param-before-grid",
                      edit("grid ceildiv(dim(0,1),64) dim(1,2) 1\n", ""),
                      "manifest line 14: 'param' before 'grid'");
  expectManifestError(h, "param-arg-range", edit("param arg 3", "param arg 4"),
                      "param arg '4': no such argument (there are 4)");
  expectManifestError(h, "param-kind", edit("param arg 3", "param tensor 3"),
                      "unknown parameter kind 'tensor'");
  expectManifestError(h, "param-workspace-id",
                      edit("param workspace small", "param workspace big"),
                      "param workspace 'big': no such workspace");
  expectManifestError(h, "param-outside-kernel",
                      edit("end-kernel\n", "end-kernel\nparam index 1\n"),
                      "'param' outside a kernel block");
  expectManifestError(h, "grid-div-zero",
                      edit("ceildiv(dim(0,1),64)", "ceildiv(dim(0,1),0)"),
                      "manifest line 14: bad expression 'ceildiv(dim(0,1),0)': "
                      "division by zero");
  expectManifestError(h, "grid-dim-arg-range", edit("dim(1,2) 1", "dim(7,2) 1"),
                      "dim(7,2) refers to argument 7, but there are 4 "
                      "arguments");
  expectManifestError(h, "grid-dim-rank", edit("dim(1,2) 1", "dim(2,1) 1"),
                      "dim(2,1): argument 2 has rank 1");
  expectManifestError(h, "grid-unknown-function",
                      edit("ceildiv(dim(0,1),64)", "floordiv(dim(0,1),64)"),
                      "unknown function 'floordiv'");
  std::string full = kFullManifest;
  expectManifestError(h, "no-kernel",
                      full.substr(0, full.find("kernel test_full_k")),
                      "manifest: no kernel");
  expectManifestError(h, "no-args",
                      "abi 1\nchip sm_90\nentry e\nkernel k\nblock 1 1 1\n"
                      "shared 0\ngrid 1 1 1\nend-kernel\n",
                      "manifest: no 'arg' lines");
  expectManifestError(h, "empty", "", "manifest: empty manifest");
  expectManifestError(h, "cu-seqlens-dtype", edit("i64 N1", "i32 N1"),
                      "argument 'cu_seqlens' must be an i64 input of rank 1");
  expectManifestError(h, "cu-seqlens-no-T",
                      "abi 1\nchip sm_90\nentry e\narg 0 cu_seqlens input i64 "
                      "N1\narg 1 o output f32 N1\nkernel k\nblock 1 1 1\n"
                      "shared 0\ngrid 1 1 1\nend-kernel\n",
                      "cu_seqlens needs a dimension named T");
  std::string manyParams = "abi 1\nchip sm_90\nentry e\narg 0 x input f32 4\n"
                           "kernel k\nblock 1 1 1\nshared 0\ngrid 1 1 1\n";
  for (int i = 0; i < kMaxKernelParams + 1; ++i)
    manyParams += "param index 1\n";
  manyParams += "end-kernel\n";
  expectManifestError(h, "too-many-params", manyParams,
                      "kernel 'k' has more than 1024 64-bit parameters");

  // Comments and sm_90a.
  Bundle b;
  Status s = Bundle::parse(
      makeBundle("# a comment\n" + edit("sm_90", "sm_90a")), b);
  h.record("manifest/comment-and-sm_90a",
           s && b.manifest.chipArchSpecific && b.manifest.chipMajor == 9,
           s.message());
  s = Bundle::parse(makeBundle(edit("sm_90", "sm_100a")), b);
  h.record("manifest/sm_100a",
           s && b.manifest.chipMajor == 10 && b.manifest.chipMinor == 0,
           s.message());

  // The manifest against its PTX.
  h.expectError(
      "ptx/kernel-missing",
      Bundle::parse(makeBundle({{"manifest", kScaleManifest},
                                {"ptx", ptxEntry("other_kernel", 18)}}),
                    b),
      ErrorCode::InvalidBundle,
      "kernel 'test_scale_k' of the manifest is not an .entry of the PTX");
  h.expectError(
      "ptx/param-count",
      Bundle::parse(makeBundle({{"manifest", kScaleManifest},
                                {"ptx", ptxEntry("test_scale_k", 17)}}),
                    b),
      ErrorCode::InvalidBundle,
      "kernel 'test_scale_k': the manifest passes 18 64-bit parameters, the "
      "PTX entry declares 17");
  std::string ptx32 = ptxEntry("test_scale_k", 18);
  ptx32.replace(ptx32.find(".u64"), 4, ".u32");
  h.expectError("ptx/32-bit-param",
                Bundle::parse(makeBundle({{"manifest", kScaleManifest},
                                          {"ptx", ptx32}}),
                              b),
                ErrorCode::InvalidBundle,
                "kernel 'test_scale_k': PTX parameter 0 is not a 64-bit "
                "scalar");
  std::string commented = "// .visible .entry test_scale_k(\n" +
                          ptxEntry("test_scale_k", 18);
  h.expectOk("ptx/entry-in-comment-ignored",
             Bundle::parse(makeBundle({{"manifest", kScaleManifest},
                                       {"ptx", commented}}),
                           b));

  // The argument shapes the code was compiled for, recorded in the PTX by
  // the compiler: a manifest that contradicts them (a K of 4 edited to 2,
  // which made kda-run size buffers the code overran) is refused.
  std::string compiled = ptxEntry("test_scale_k", 18) +
                         "// kda.arg 0 x input f32 B,T,4\n"
                         "// kda.arg 1 y output f32 B,T,4\n";
  h.expectOk("ptx/compiled-args-match",
             Bundle::parse(makeBundle({{"manifest", kScaleManifest},
                                       {"ptx", compiled}}),
                           b));
  std::string edited = kScaleManifest;
  edited.replace(edited.find("y output f32 B,T,4"), 18, "y output f32 B,T,2");
  h.expectError("ptx/compiled-args-differ",
                Bundle::parse(makeBundle({{"manifest", edited},
                                          {"ptx", compiled}}),
                              b),
                ErrorCode::InvalidBundle,
                "manifest argument 1 'y' is 'arg 1 y output f32 B,T,2', but "
                "the code was compiled for 'arg 1 y output f32 B,T,4'");
  h.expectError("ptx/compiled-args-fewer",
                Bundle::parse(makeBundle({{"manifest", kScaleManifest},
                                          {"ptx", compiled.substr(
                                              0, compiled.rfind("// kda"))}}),
                              b),
                ErrorCode::InvalidBundle,
                "the code was compiled for 1 arguments, the manifest has 2");
  h.expectError("ptx/compiled-args-more",
                Bundle::parse(makeBundle({{"manifest", kScaleManifest},
                                          {"ptx", compiled +
                                                      "// kda.arg 2 z output "
                                                      "f32 B\n"}}),
                              b),
                ErrorCode::InvalidBundle,
                "the code was compiled for more arguments than the "
                "manifest's 2");
}

} // namespace

void runBundleTests(Harness &h) {
  containerTests(h);
  manifestTests(h);
}

} // namespace kda::rt::test
