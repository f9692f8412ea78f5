//===- PTXMerge.cpp - join PTX modules into one ---------------------------===//

#include "PTXMerge.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

using namespace mlir;

namespace {

/// The module header's directives, which every joined module must share.
constexpr StringLiteral kHeaderDirectives[] = {".version", ".target",
                                               ".address_size"};

/// `line` without a trailing `//` comment and surrounding blanks.
StringRef code(StringRef line) {
  return line.split("//").first.trim();
}

/// The symbol a module-scope declaration such as `.shared .align 16 .b8
/// name[64];` or `.global .u32 name = 1;` declares.
StringRef declaredSymbol(StringRef declaration) {
  StringRef text = declaration.drop_back(); // the ';'
  text = text.split('=').first.rtrim();
  text = text.split('[').first.rtrim();
  size_t blank = text.find_last_of(" \t");
  return blank == StringRef::npos ? text : text.drop_front(blank + 1);
}

} // namespace

FailureOr<std::string> kda::mergePTXModules(ArrayRef<std::string> modules,
                                            std::string &error) {
  std::string merged;
  SmallVector<std::string> header; // directives of the first module
  llvm::StringMap<std::string> declarations; // symbol -> its declaration
  for (auto [index, module] : llvm::enumerate(modules)) {
    SmallVector<StringRef> lines;
    StringRef(module).split(lines, '\n');
    // The header: everything up to and including `.address_size`.
    size_t body = 0;
    SmallVector<std::string> directives;
    for (; body < lines.size(); ++body) {
      StringRef line = code(lines[body]);
      if (llvm::any_of(kHeaderDirectives, [&](StringRef directive) {
            return line.starts_with(directive);
          }))
        directives.push_back(line.str());
      if (line.starts_with(".address_size"))
        break;
    }
    if (body == lines.size() || directives.size() != 3) {
      error = "PTX module " + std::to_string(index) +
              " has no .version/.target/.address_size header";
      return failure();
    }
    ++body;
    if (index == 0) {
      header = directives;
      for (size_t i = 0; i < body; ++i)
        merged += lines[i].str() + "\n";
    } else if (directives != header) {
      error = "PTX module " + std::to_string(index) + " has the header '" +
              llvm::join(directives, " ") + "', module 0 '" +
              llvm::join(header, " ") + "'";
      return failure();
    }

    // The rest: module-scope declarations (one line at brace depth 0,
    // ending in ';') once each; everything else as it is.
    int depth = 0;
    for (size_t i = body; i < lines.size(); ++i) {
      StringRef line = lines[i];
      StringRef text = code(line);
      if (depth == 0 && text.starts_with(".") && text.ends_with(";")) {
        StringRef symbol = declaredSymbol(text);
        auto [it, inserted] = declarations.try_emplace(symbol, text.str());
        if (!inserted) {
          if (it->second != text) {
            error = "PTX modules declare '" + symbol.str() +
                    "' differently: '" + it->second + "' and '" + text.str() +
                    "'";
            return failure();
          }
          continue;
        }
      }
      depth += static_cast<int>(text.count('{')) -
               static_cast<int>(text.count('}'));
      // No blank line piles up where the modules meet.
      if (i + 1 == lines.size() && line.empty())
        continue;
      merged += line.str() + "\n";
    }
  }
  return merged;
}
