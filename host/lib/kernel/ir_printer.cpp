// A stable text form of the IR: one statement per line, prefixed with its
// source line, temporaries named as lowering named them. Golden tests pin it.
#include "weft/kernel/lower.hpp"

#include <cstdio>
#include <filesystem>
#include <sstream>

namespace weft::kernel {

namespace {

using K = ir::Expr::Kind;
using S = ir::Stmt::Kind;

std::string number(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    std::string s = buf;
    if (s.find_first_of(".eEn") == std::string::npos) s += ".0"; // 2.0, not 2: a float reads as one
    return s;
}

std::string constant_text(const ir::ConstantValue &c) {
    auto component = [&](std::size_t i) {
        // Native aggregates mix field types: their components print as numbers.
        const bool is_float = c.type.kind() == Type::Kind::Native || Type::scalar(c.type.scalar_type()).is_float();
        if (c.type.is_bool()) return std::string(c.int_components[i] ? "True" : "False");
        if (is_float || i >= c.int_components.size()) return number(c.components[i]);
        return ir::to_string(c.int_components[i]);
    };
    if (c.type.is_scalar()) return component(0) + ":" + c.type.name();
    std::string out = c.type.name() + "(";
    for (std::size_t i = 0; i < c.components.size(); ++i) out += (i ? ", " : "") + component(i);
    return out + ")";
}

class Printer {
public:
    Printer(const ir::Module &m, std::ostringstream &out) : m_(m), out_(out) {}

    void module() {
        out_ << "module " << m_.name << (m_.lowered ? " (lowered)" : " (typed)") << "\n";
        if (!m_.source_path.empty())
            out_ << "source " << std::filesystem::path(m_.source_path).filename().string() << "\n";
        for (const ir::Struct &s : m_.structs) {
            out_ << "struct " << s.name << " size " << s.type.size() << " align " << s.type.alignment() << " {";
            const auto &fields = s.type.layout().fields;
            for (std::size_t i = 0; i < fields.size(); ++i)
                out_ << (i ? ", " : " ") << fields[i].name << ": " << fields[i].type.name() << " @" << fields[i].offset;
            out_ << " }\n";
        }
        for (const ir::Constant &c : m_.constants) out_ << "const " << c.name << " = " << constant_text(c.value) << "\n";
        for (const ir::Function &f : m_.functions) function(f);
    }

private:
    const ir::Module &m_;
    std::ostringstream &out_;
    const ir::Function *f_ = nullptr;

    void function(const ir::Function &f) {
        f_ = &f;
        out_ << "\n" << (f.is_kernel ? "kernel " : "func ") << f.name << " [" << f.mangled_name << "](";
        for (std::size_t i = 0; i < f.params.size(); ++i)
            out_ << (i ? ", " : "") << f.params[i].name << ": " << f.params[i].type.name();
        out_ << ")";
        if (f.return_type) out_ << " -> " << f.return_type->name();
        if (f.is_kernel) {
            if (f.tid_dims) out_ << " tid_dims=" << f.tid_dims;
            if (f.abi == ir::EntryPointAbi::ExternalConstantParams) out_ << " abi=external_constant_params";
            if (!f.entry_name.empty()) out_ << " name=" << f.entry_name;
            if (!f.enable_backward) out_ << " enable_backward=False";
        }
        out_ << "\n";
        for (const ir::Variable &v : f.locals)
            out_ << "  " << (v.temporary ? "temp " : "local ") << v.name << ": " << v.type.name() << "\n";
        block(f.body, 1);
    }

    std::string local_name(int index) const {
        if (index < 0) return "$" + std::to_string(-1 - index); // a tile_map / tile_reduce element operand
        if (static_cast<std::size_t>(index) >= f_->locals.size()) return "<local " + std::to_string(index) + "?>";
        return f_->locals[static_cast<std::size_t>(index)].name;
    }

    std::string args(const ir::Expr &e, std::size_t from = 0) const {
        std::string out;
        for (std::size_t i = from; i < e.args.size(); ++i) out += (i > from ? ", " : "") + expr(*e.args[i]);
        return out;
    }

    std::string expr(const ir::Expr &e) const {
        switch (e.kind) {
        case K::Literal: return e.value ? constant_text(*e.value) : "<literal?>";
        case K::String: {
            std::string out = "\"";
            for (char c : e.name) out += c == '"' ? std::string("\\\"") : c == '\n' ? std::string("\\n") : std::string(1, c);
            return out + "\"";
        }
        case K::Local: return local_name(e.index);
        case K::Param:
            if (e.index < 0 || static_cast<std::size_t>(e.index) >= f_->params.size()) return "<param?>";
            return f_->params[static_cast<std::size_t>(e.index)].name;
        case K::Constant: return e.name;
        case K::Builtin: {
            std::string callee = e.overload ? e.overload->name : e.name;
            if (e.overload && e.overload->external) callee += "[" + e.overload->native_name + "]";
            return callee + "(" + args(e) + ")";
        }
        case K::Intrinsic: return "%" + std::string(ir::intrinsic_name(e.intrinsic)) + "(" + args(e) + ")";
        case K::Call: return "call " + e.name + "(" + args(e) + ")";
        case K::Tile: return e.name + "<" + e.type.name() + ">(" + args(e) + ")";
        case K::Construct: return e.type.name() + "(" + args(e) + ")";
        case K::Cast: return "cast<" + e.type.name() + ">(" + args(e) + ")";
        case K::Field: return expr(*e.args[0]) + "." + e.name;
        case K::Index: return expr(*e.args[0]) + "[" + args(e, 1) + "]";
        case K::Shape: return expr(*e.args[0]) + ".shape[" + std::to_string(e.index) + "]";
        case K::View: {
            std::string out = "view(" + expr(*e.args[0]);
            std::size_t a = 1;
            for (int k = 0; a < e.args.size(); ++k) {
                if (e.index & (1 << k)) {
                    out += ", " + expr(*e.args[a]) + ":" + expr(*e.args[a + 1]) + ":" + expr(*e.args[a + 2]);
                    a += 3;
                } else {
                    out += ", " + expr(*e.args[a++]);
                }
            }
            return out + ")";
        }
        case K::Gather: {
            std::string out = "gather(" + args(e) + "; ";
            if (e.value)
                for (std::size_t i = 0; i < e.value->int_components.size(); ++i)
                    out += (i ? " " : "") + ir::to_string(e.value->int_components[i]);
            return out + ")";
        }
        case K::Select: return "(" + expr(*e.args[1]) + " if " + expr(*e.args[0]) + " else " + expr(*e.args[2]) + ")";
        case K::And:
        case K::Or: {
            std::string out = "(";
            for (std::size_t i = 0; i < e.args.size(); ++i)
                out += (i ? (e.kind == K::And ? " and " : " or ") : "") + expr(*e.args[i]);
            return out + ")";
        }
        case K::Compare: {
            std::string out = "(" + expr(*e.args[0]);
            for (std::size_t i = 0; i < e.chain.size(); ++i) out += " " + e.chain[i]->name + " " + expr(*e.args[i + 1]);
            return out + ")";
        }
        case K::Not: return "not " + expr(*e.args[0]);
        }
        return "<expr?>";
    }

    void line(const ir::Stmt &s, int depth, const std::string &text) {
        out_ << std::string(static_cast<std::size_t>(depth) * 2, ' ') << s.location.line << "| " << text << "\n";
    }

    void block(const std::vector<ir::StmtPtr> &body, int depth) {
        for (const ir::StmtPtr &s : body) statement(*s, depth);
    }

    void statement(const ir::Stmt &s, int depth) {
        switch (s.kind) {
        case S::Declare:
        case S::Assign: line(s, depth, local_name(s.index) + " = " + expr(*s.value)); return;
        case S::Store: line(s, depth, expr(*s.target) + " <- " + expr(*s.value)); return;
        case S::Unpack: {
            std::string names;
            for (std::size_t i = 0; i < s.targets.size(); ++i) names += (i ? ", " : "") + local_name(s.targets[i]);
            line(s, depth, names + " = " + expr(*s.value));
            return;
        }
        case S::Eval: line(s, depth, expr(*s.value)); return;
        case S::If:
            line(s, depth, "if " + expr(*s.cond) + ":");
            block(s.body, depth + 1);
            if (!s.orelse.empty()) {
                line(s, depth, "else:");
                block(s.orelse, depth + 1);
            }
            return;
        case S::For:
            line(s, depth, "for " + local_name(s.index) + " in range(" + expr(*s.args[0]) + ", " + expr(*s.args[1]) +
                               ", " + expr(*s.args[2]) + "):");
            block(s.body, depth + 1);
            return;
        case S::While:
            line(s, depth, "while " + expr(*s.cond) + ":");
            block(s.body, depth + 1);
            return;
        case S::Break: line(s, depth, "break"); return;
        case S::Continue: line(s, depth, "continue"); return;
        case S::Return: line(s, depth, s.value ? "return " + expr(*s.value) : "return"); return;
        case S::AugAssign:
            line(s, depth, expr(*s.target) + " " + (s.overload ? s.overload->name : "?") + "= " + expr(*s.value) +
                               (s.atomic ? "  (atomic)" : ""));
            return;
        }
    }
};

} // namespace

std::string print_ir(const ir::Module &module) {
    std::ostringstream out;
    Printer(module, out).module();
    return out.str();
}

} // namespace weft::kernel
