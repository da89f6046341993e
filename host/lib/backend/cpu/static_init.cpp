// Static constructors of a JIT'd module. Without an ORC platform runtime
// nothing runs an object's .init_array, so before code generation the
// llvm.global_ctors list becomes one function, static_init_symbol, that
// CpuJit::load calls. Destructors go through __cxa_atexit, which the JIT
// interposes per module (jit.cpp), with a __dso_handle defined here.
#include "internal.hpp"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <algorithm>

namespace weft::backend::cpu {

std::string static_init_name(int part) {
    return part <= 0 ? std::string(static_init_symbol) : std::string(static_init_symbol) + "." + std::to_string(part);
}

std::string dso_handle_name(int part) {
    return part <= 0 ? std::string("__dso_handle") : "__dso_handle." + std::to_string(part);
}

bool is_static_init_name(std::string_view symbol) {
    const std::string_view base = static_init_symbol;
    return symbol.substr(0, base.size()) == base && (symbol.size() == base.size() || symbol[base.size()] == '.');
}

bool is_dso_handle_name(std::string_view symbol) {
    const std::string_view base = "__dso_handle";
    return symbol.substr(0, base.size()) == base && (symbol.size() == base.size() || symbol[base.size()] == '.');
}

} // namespace weft::backend::cpu

namespace weft::backend {

int unit_part(std::string_view key_hex) {
    unsigned long v = 0;
    for (std::size_t i = 0; i < 8 && i < key_hex.size(); ++i) {
        const char c = key_hex[i];
        v = v * 16 + static_cast<unsigned long>(c >= 'a' ? c - 'a' + 10 : c >= 'A' ? c - 'A' + 10 : c - '0');
    }
    return 1000000 + static_cast<int>(v % 1000000000ul);
}

} // namespace weft::backend

namespace weft::backend::cpu {

void lower_static_constructors(llvm::Module &module, int part) {
    const std::string init_name = static_init_name(part);
    // __cxa_atexit(dtor, object, &__dso_handle) registers static destructors
    // for this module: give it its own __dso_handle, in its own (JIT) memory,
    // close enough for the PC-relative access hidden symbols get. Each part of
    // a bundle has its own, named for the part (dso_handle_name), so that no
    // PC-relative reference crosses objects the JIT may map far apart.
    if (llvm::GlobalVariable *dso = module.getNamedGlobal("__dso_handle"); dso && dso->isDeclaration()) {
        dso->setInitializer(llvm::Constant::getNullValue(dso->getValueType()));
        dso->setVisibility(llvm::GlobalValue::HiddenVisibility);
        dso->setConstant(true);
        if (part > 0) dso->setName(dso_handle_name(part));
    }
    llvm::GlobalVariable *list = module.getNamedGlobal("llvm.global_ctors");
    if (!list) return;
    struct Ctor {
        uint64_t priority;
        llvm::Function *fn;
    };
    std::vector<Ctor> ctors;
    if (auto *array = llvm::dyn_cast_or_null<llvm::ConstantArray>(list->getInitializer())) {
        for (llvm::Value *op : array->operands()) {
            auto *entry = llvm::dyn_cast<llvm::ConstantStruct>(op);
            if (!entry || entry->getNumOperands() < 2) continue;
            auto *priority = llvm::dyn_cast<llvm::ConstantInt>(entry->getOperand(0));
            auto *fn = llvm::dyn_cast<llvm::Function>(entry->getOperand(1)->stripPointerCasts());
            if (priority && fn) ctors.push_back({priority->getZExtValue(), fn});
        }
    }
    list->eraseFromParent();
    if (ctors.empty()) return;
    std::stable_sort(ctors.begin(), ctors.end(), [](const Ctor &a, const Ctor &b) { return a.priority < b.priority; });

    llvm::LLVMContext &context = module.getContext();
    auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(context), false);
    auto *init = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, init_name, module);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", init));
    for (const Ctor &c : ctors) b.CreateCall(c.fn->getFunctionType(), c.fn);
    b.CreateRetVoid();
}

} // namespace weft::backend::cpu
