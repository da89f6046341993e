// The recursive-descent parser behind parse_module(), in four parts that
// share this class: parse_tokens.cpp (look-ahead, errors, recovery),
// parse_exprs.cpp, parse_stmts.cpp and parse_module.cpp (the module's top
// level: imports, constants, decorators, functions, classes). Internal to the
// front end; the entry point is in weft/kernel/parser.hpp.
#pragma once

#include "kernel/lexer.hpp"
#include "weft/kernel/ast.hpp"
#include "weft/kernel/diagnostics.hpp"

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace weft::kernel::detail {

// Python's own tokenizer stops at 200 nested brackets and 100 indentation
// levels; the same bounds keep this recursive descent far from the end of any
// thread's stack, sanitizers included.
constexpr std::uint32_t max_expression_depth = 200;
constexpr std::uint32_t max_block_depth = 100;
// Left-associative chains (a + b + ..., a.b.c..., f()()..., elif ...) are
// parsed by loops, yet they still build trees as deep as they are long, and
// every later pass over the tree (and the tree's own destructor) recurses.
constexpr std::uint32_t max_tree_height = 1000;
// `and` / `or` operands in one function. They lower side by side (no
// nesting), but the C++ optimizer's time and memory grow faster than their
// number in one function: 1,000 built in 1.4 s and 0.3 GB, 3,000 in 17 s and
// 1.2 GB, 20,000 ran out of memory at 12.7 GB (issue 39).
constexpr std::uint32_t max_bool_operands = 2000;

/// An expression under construction and the height of its tree.
struct Node {
    ast::ExprPtr expr;
    std::uint32_t height = 0;
    explicit operator bool() const { return expr != nullptr; }
};

enum class BlockKind { Function, Class };
enum class TargetUse { Assign, Annotation, Augmented };

class DepthGuard {
public:
    DepthGuard(std::uint32_t &depth, std::uint32_t limit) : depth_(depth) { ok_ = ++depth_ <= limit; }
    ~DepthGuard() { --depth_; }
    DepthGuard(const DepthGuard &) = delete;
    DepthGuard &operator=(const DepthGuard &) = delete;
    bool ok() const { return ok_; }

private:
    std::uint32_t &depth_;
    bool ok_;
};

bool is_augmented_assign(const Token &t);
bool is_clause_keyword(const Token &t);

class Parser {
public:
    Parser(const SourceFile &file, DiagnosticEngine &diags) : lexer_(file, diags), diags_(diags) {}

    ast::Module parse();

private:
    // --- tokens -----------------------------------------------------------
    const Token &peek(std::size_t k = 0);
    Token advance();
    bool check(TokenKind kind) { return peek().kind == kind; }
    bool check_op(std::string_view op) { return peek().is_op(op); }
    bool check_kw(std::string_view kw) { return peek().is_keyword(kw); }
    bool at_statement_end() { return check(TokenKind::Newline) || check(TokenKind::EndOfFile) || check_op(";"); }
    bool at_match_statement();

    // --- errors -----------------------------------------------------------
    // Messages are views so that a call site with a literal builds no string:
    // call sites sit on the recursion path, and every temporary there is
    // stack paid at each level of nesting.
    [[gnu::noinline]] void report(SourceLocation at, std::string_view message);
    [[gnu::noinline]] void fail(SourceLocation at, std::string_view message);
    [[gnu::noinline]] void unexpected(std::string_view expected);
    bool expect_op(std::string_view op, std::string_view expected);
    void skip_line();
    void skip_block();
    void recover(bool compound);

    // --- expressions ------------------------------------------------------
    Node leaf(ast::Expr::Kind kind, SourceLocation at) { return Node{std::make_unique<ast::Expr>(kind, at), 1}; }
    bool grow(Node &parent, std::uint32_t child_height);
    /// Counts one more `and`/`or` operand of the current function; false
    /// (reported) past max_bool_operands.
    bool count_bool_operand(SourceLocation at);
    bool add(Node &parent, Node child);
    bool add_keyword(Node &call, std::string name, SourceLocation at, Node value);

    // always_inline: these sit on the recursion path and each has one caller,
    // in the same file. While the parser was one file, internal linkage let
    // GCC fold each into its caller; as external functions they would cost a
    // frame of their own at every level of nesting (in release builds 40% more
    // stack per bracket, 70% more per block; see max_expression_depth).
    // Defined and called in one file only, as `inline` requires.
    Node parse_star_expressions();
    Node parse_expression();
    Node parse_or();
    Node parse_and();
    Node parse_not();
    [[gnu::always_inline]] inline Node parse_comparison();
    std::string comparison_op();
    Node parse_binary(int min_precedence);
    [[gnu::always_inline]] inline Node parse_unary();
    [[gnu::always_inline]] inline Node parse_primary();
    [[gnu::always_inline]] inline Node parse_atom();
    // Kept out of line: each is on the recursion path of one kind of bracket
    // only, and inlined together they would make every level's frame the sum
    // of all of them (sanitizer builds do not share stack slots).
    [[gnu::noinline]] Node parse_call(Node callee);
    [[gnu::noinline]] Node parse_subscript(Node value);
    [[gnu::noinline]] Node parse_strings();
    [[gnu::noinline]] Node parse_parenthesized();
    [[gnu::noinline]] void reject_bracket_display();
    [[gnu::noinline]] Node parse_dict();
    [[gnu::noinline]] Node parse_list(); // wp.overload(kernel, [types])
    Node parse_target_list();

    // --- statements -------------------------------------------------------
    [[gnu::always_inline]] inline void statement(std::vector<ast::StmtPtr> &out, BlockKind kind);
    bool starts_compound(const Token &t);
    [[gnu::always_inline]] inline void compound_statement(std::vector<ast::StmtPtr> &out, BlockKind kind);
    bool reject_unsupported_compound();
    void reject_decorated(BlockKind kind);
    /// After a simple statement: true when a ';' puts another on the same line.
    bool more_on_line();
    void simple_statements(std::vector<ast::StmtPtr> &out, BlockKind kind);
    ast::StmtPtr simple_statement(BlockKind kind);
    [[gnu::always_inline]] inline ast::StmtPtr expression_statement();
    bool check_target(const Node &target, TargetUse use);
    /// With `stopped_at_definition`: stops before a line of the block that
    /// starts a definition (`@`, `def`), sets it, and leaves the block open.
    std::vector<ast::StmtPtr> parse_block(const std::string &what, std::uint32_t line, BlockKind kind,
                                          bool *stopped_at_definition = nullptr);
    // Not inlined, unlike statement() and compound_statement(): folded
    // together, all three frames would be paid at each level in builds that do
    // not share stack slots (-O0, sanitizers), where only one is used.
    ast::StmtPtr parse_if();
    ast::StmtPtr parse_while();
    ast::StmtPtr parse_for();
    void reject_loop_else(const char *loop);

    // --- top level --------------------------------------------------------
    bool top_level_item();
    void top_level_simple();
    void add_top_level(ast::StmtPtr s);
    void parse_import();
    void parse_from_import();
    std::string dotted_name();
    bool parse_decorated();
    bool make_decorator(ast::ExprPtr e, SourceLocation at, ast::Decorator &d);
    void parse_function(std::vector<ast::Decorator> decorators);
    void parse_params(std::vector<ast::Param> &params);
    void parse_class(std::vector<ast::Decorator> decorators);

    // --- kernel factories (parse_factories.cpp) ---------------------------
    void parse_factory(ast::FunctionDef header);
    bool factory_item(ast::Factory &factory);
    const ast::Factory *find_factory(const std::string &name) const;
    void instantiate_factory(const ast::Factory &factory, const ast::Expr &call, const std::string &target);

    detail::Lexer lexer_;
    DiagnosticEngine &diags_;
    std::deque<Token> ahead_;
    Token eof_; // what peek() shows once the error limit is reached
    std::size_t consumed_ = 0;
    // Set by the first error in a statement; parse functions then return
    // empty results until the statement's caller recovers at the next line.
    bool failed_ = false;
    std::uint32_t expr_depth_ = 0;
    std::uint32_t bool_operands_ = 0; // in the function being parsed (max_bool_operands)
    std::uint32_t block_depth_ = 0;
    std::uint32_t stmt_path_ = 0; // blocks and elif links from the top: the statement tree's height so far
    // Dict literals are module options: allowed in decorator arguments and
    // top-level statements (wp.set_module_options), nowhere in a function body.
    // List literals likewise, for wp.overload(kernel, [types]).
    bool allow_dict_ = false;
    // `...` is the body of a @wp.overload stub, and nothing else.
    bool allow_ellipsis_ = false;
    struct AllowDict {
        Parser &p;
        bool saved;
        explicit AllowDict(Parser &parser) : p(parser), saved(parser.allow_dict_) { p.allow_dict_ = true; }
        ~AllowDict() { p.allow_dict_ = saved; }
        AllowDict(const AllowDict &) = delete;
        AllowDict &operator=(const AllowDict &) = delete;
    };
    ast::Module module_;
    std::vector<ast::Factory> factories_;
    // Where parse_function puts a definition: the module, or the body of the
    // kernel factory being parsed.
    std::vector<ast::FunctionDef> *function_sink_ = nullptr;
};

} // namespace weft::kernel::detail
