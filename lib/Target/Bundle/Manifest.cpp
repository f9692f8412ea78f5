//===- Manifest.cpp - the launch-plan manifest of a bundle ----------------===//

#include "Manifest.h"

#include "kda/Dialect/KDA/KDADialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {

/// Writes manifest expressions for the scalar values of the host entry.
class ExprWriter {
public:
  explicit ExprWriter(Block &entry) : entry(entry) {}

  /// The expression computing `v`, or failure (with a diagnostic at `user`).
  FailureOr<std::string> write(Value v, Operation *user) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      user->emitError() << "cannot express block argument #"
                        << arg.getArgNumber() << " in the bundle manifest";
      return failure();
    }
    Operation *def = v.getDefiningOp();
    auto binary = [&](StringRef name) -> FailureOr<std::string> {
      FailureOr<std::string> lhs = write(def->getOperand(0), def);
      FailureOr<std::string> rhs = write(def->getOperand(1), def);
      if (failed(lhs) || failed(rhs))
        return failure();
      return (name + "(" + *lhs + "," + *rhs + ")").str();
    };
    return llvm::TypeSwitch<Operation *, FailureOr<std::string>>(def)
        .Case<arith::ConstantOp>([&](auto c) -> FailureOr<std::string> {
          auto attr = dyn_cast<IntegerAttr>(c.getValue());
          if (!attr || attr.getValue().isNegative()) {
            c.emitError("only non-negative integer constants can appear in "
                        "the bundle manifest");
            return failure();
          }
          return std::to_string(attr.getValue().getZExtValue());
        })
        .Case<memref::DimOp>([&](auto dim) -> FailureOr<std::string> {
          auto arg = dyn_cast<BlockArgument>(dim.getSource());
          std::optional<int64_t> index = dim.getConstantIndex();
          if (!arg || arg.getOwner() != &entry || !index) {
            dim.emitError("only constant dimensions of entry arguments can "
                          "appear in the bundle manifest");
            return failure();
          }
          return "dim(" + std::to_string(arg.getArgNumber()) + "," +
                 std::to_string(*index) + ")";
        })
        .Case<arith::IndexCastOp, arith::IndexCastUIOp>(
            [&](Operation *op) { return write(op->getOperand(0), op); })
        .Case<arith::AddIOp>([&](auto) { return binary("add"); })
        .Case<arith::SubIOp>([&](auto) { return binary("sub"); })
        .Case<arith::MulIOp>([&](auto) { return binary("mul"); })
        .Case<arith::DivUIOp, arith::DivSIOp>([&](auto) { return binary("div"); })
        .Case<arith::CeilDivUIOp, arith::CeilDivSIOp>(
            [&](auto) { return binary("ceildiv"); })
        .Case<arith::RemUIOp, arith::RemSIOp>([&](auto) { return binary("rem"); })
        .Case<arith::MinSIOp, arith::MinUIOp>([&](auto) { return binary("min"); })
        .Case<arith::MaxSIOp, arith::MaxUIOp>([&](auto) { return binary("max"); })
        .Default([&](Operation *op) -> FailureOr<std::string> {
          op->emitOpError("cannot be expressed in the bundle manifest");
          return failure();
        });
  }

private:
  Block &entry;
};

/// Manifest name of an element type.
FailureOr<std::string> dtypeName(Type type, Operation *where) {
  if (type.isF32())
    return std::string("f32");
  if (type.isF16())
    return std::string("f16");
  if (type.isBF16())
    return std::string("bf16");
  if (type.isInteger(32))
    return std::string("i32");
  if (type.isInteger(64))
    return std::string("i64");
  where->emitError() << "element type " << type
                     << " cannot appear in a bundle";
  return failure();
}

/// Size in bytes of one element of a manifest dtype.
int64_t dtypeBytes(StringRef dtype) {
  return dtype == "f16" || dtype == "bf16" ? 2 : dtype == "i64" ? 8 : 4;
}

} // namespace

FailureOr<std::string> kda::buildManifest(func::FuncOp entry, StringRef chip) {
  std::string text;
  llvm::raw_string_ostream os(text);
  Block &body = entry.getBody().front();
  auto numInputs = entry->getAttrOfType<IntegerAttr>(
      kda::KDADialect::getNumInputsAttrName());
  if (!numInputs || numInputs.getInt() < 0 ||
      numInputs.getInt() > body.getNumArguments())
    return entry.emitError("the entry needs a 'kda.num_inputs' attribute "
                           "(how many leading arguments are inputs; the rest "
                           "are outputs)");
  // kda functions get names, dimension symbols and a key from
  // --convert-kda-to-tile; entries written at the tile level get generic
  // ones: argN, and D<arg>_<dim> for dynamic dimensions.
  Builder builder(entry.getContext());
  auto names =
      entry->getAttrOfType<ArrayAttr>(kda::KDADialect::getArgNamesAttrName());
  auto dims =
      entry->getAttrOfType<ArrayAttr>(kda::KDADialect::getArgDimsAttrName());
  auto key =
      entry->getAttrOfType<DictionaryAttr>(kda::KDADialect::getKeyAttrName());
  if (!names || !dims || names.size() != body.getNumArguments() ||
      dims.size() != body.getNumArguments()) {
    SmallVector<Attribute> genericNames, genericDims;
    for (BlockArgument arg : body.getArguments()) {
      unsigned i = arg.getArgNumber();
      genericNames.push_back(builder.getStringAttr("arg" + Twine(i)));
      std::string shape;
      if (auto type = dyn_cast<MemRefType>(arg.getType()))
        for (auto [d, size] : llvm::enumerate(type.getShape()))
          shape += (d ? "," : "") +
                   (ShapedType::isDynamic(size)
                        ? "D" + std::to_string(i) + "_" + std::to_string(d)
                        : std::to_string(size));
      genericDims.push_back(builder.getStringAttr(shape));
    }
    names = builder.getArrayAttr(genericNames);
    dims = builder.getArrayAttr(genericDims);
  }
  if (!key)
    key = builder.getDictionaryAttr(builder.getNamedAttr(
        "program", builder.getStringAttr("custom")));

  os << "abi 1\n";
  os << "chip " << chip << "\n";
  os << "entry " << entry.getName() << "\n";
  os << "key";
  // `program` first, then the rest in the order they were recorded.
  if (auto program = key.getAs<StringAttr>("program"))
    os << " program=" << program.getValue();
  for (NamedAttribute attr : key)
    if (attr.getName() != "program")
      os << " " << attr.getName().getValue() << "="
         << cast<StringAttr>(attr.getValue()).getValue();
  os << "\n";

  for (BlockArgument arg : body.getArguments()) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type)
      return entry.emitError("bundle entries take memrefs only");
    FailureOr<std::string> dtype = dtypeName(type.getElementType(), entry);
    if (failed(dtype))
      return failure();
    unsigned i = arg.getArgNumber();
    os << "arg " << i << " " << cast<StringAttr>(names[i]).getValue() << " "
       << (i < numInputs.getInt() ? "input" : "output") << " " << *dtype << " "
       << cast<StringAttr>(dims[i]).getValue() << "\n";
  }

  ExprWriter exprs(body);
  // Workspaces: every allocation of the host entry.
  DenseMap<Value, unsigned> workspaceIds;
  std::string workspaceShapes;
  for (auto alloc : body.getOps<memref::AllocOp>()) {
    MemRefType type = alloc.getType();
    FailureOr<std::string> dtype = dtypeName(type.getElementType(), alloc);
    if (failed(dtype))
      return failure();
    std::string bytes = std::to_string(dtypeBytes(*dtype));
    std::string shape;
    unsigned dynamicIndex = 0;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      std::string size;
      if (type.isDynamicDim(d)) {
        FailureOr<std::string> e =
            exprs.write(alloc.getDynamicSizes()[dynamicIndex++], alloc);
        if (failed(e))
          return failure();
        size = *e;
      } else {
        size = std::to_string(type.getDimSize(d));
      }
      bytes = "mul(" + bytes + "," + size + ")";
      shape += (d ? "," : "") + size;
    }
    unsigned id = workspaceIds.size();
    workspaceIds[alloc.getResult()] = id;
    os << "workspace " << id << " " << bytes << "\n";
    workspaceShapes += std::to_string(id) + " " + *dtype + " " + shape + "\n";
  }

  for (auto launch : body.getOps<gpu::LaunchFuncOp>()) {
    os << "kernel " << launch.getKernelName().getValue() << "\n";
    auto constant = [&](Value v) -> std::optional<int64_t> {
      return getConstantIntValue(v);
    };
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    std::optional<int64_t> bx = constant(block.x), by = constant(block.y),
                           bz = constant(block.z);
    if (!bx || !by || !bz)
      return launch.emitError("block sizes must be constants in a bundle");
    os << "block " << *bx << " " << *by << " " << *bz << "\n";
    int64_t shared = 0;
    if (Value smem = launch.getDynamicSharedMemorySize()) {
      std::optional<int64_t> s = constant(smem);
      if (!s)
        return launch.emitError("dynamic shared memory must be a constant");
      shared = *s;
    }
    os << "shared " << shared << "\n";
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    os << "grid";
    for (Value g : {grid.x, grid.y, grid.z}) {
      FailureOr<std::string> e = exprs.write(g, launch);
      if (failed(e))
        return failure();
      os << " " << *e;
    }
    os << "\n";
    for (Value operand : launch.getKernelOperands()) {
      if (auto arg = dyn_cast<BlockArgument>(operand)) {
        os << "param arg " << arg.getArgNumber() << "\n";
      } else if (workspaceIds.count(operand)) {
        unsigned id = workspaceIds[operand];
        // Find the shape line of this workspace.
        StringRef rest = workspaceShapes;
        while (!rest.empty()) {
          auto [line, tail] = rest.split('\n');
          if (line.starts_with(std::to_string(id) + " "))
            os << "param workspace " << line << "\n";
          rest = tail;
        }
      } else if (operand.getType().isIntOrIndex()) {
        FailureOr<std::string> e = exprs.write(operand, launch);
        if (failed(e))
          return failure();
        os << "param index " << *e << "\n";
      } else {
        return launch.emitError("kernel operands must be entry arguments, "
                                "workspaces or integers in a bundle");
      }
    }
    os << "end-kernel\n";
  }
  return text;
}
