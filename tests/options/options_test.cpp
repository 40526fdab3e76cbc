// Typed option rows (ngx/options.hpp) and a module's reader of them
// (ngx/module_support.hpp): a declared row is parsed with its own type and
// range, a row that is not in the reader's table is refused naming the
// option and the plugin, and --help shows the type and range from the row.
#include <ngx/module_support.hpp>
#include <ngx/options.hpp>

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace ngx;

constexpr auto demo_n = opt::row::whole_number("demo-n", "16", 2, 10000, "messages n");
constexpr auto demo_size = opt::row::byte_count("demo-size", "64Ki", 1, uint64_t(1) << 30, "buffer");
constexpr auto demo_mode = opt::row::choice("demo-mode", "robust", {"robust", "paper", "none"}, "detector");
constexpr auto demo_rate = opt::row::number("demo-rate", "0.5", 0, 1, "share");
constexpr auto demo_poll = opt::row::yes_no("demo-poll", "no", "spin");
constexpr auto demo_file = opt::row::text("demo-file", opt::no_default, "input");
constexpr auto demo_quiet = opt::row::flag("demo-quiet", "say less");
constexpr auto demo_mtu = opt::row::auto_or_bytes("demo-mtu", "auto", 17, 65507, "payload");
// Declared like the others but left out of the table below.
constexpr auto demo_nn = opt::row::whole_number("demo-nn", "16", 2, 10000, "a row nobody listed");

opt::Table demo_table()
{
    return {"demo", {demo_n, demo_size, demo_mode, demo_rate, demo_poll, demo_file, demo_quiet, demo_mtu}};
}

TEST(OptionRows, DeclaredRowsAreParsedWithTheirTypeAndRange)
{
    opt::Reader read(demo_table(), {{"demo-n", "100"},
                                    {"demo-size", "4Ki"},
                                    {"demo-mode", "paper"},
                                    {"demo-rate", "0.25"},
                                    {"demo-poll", "yes"},
                                    {"demo-file", "a.csv"},
                                    {"demo-quiet", "1"},
                                    {"demo-mtu", "1400"}});
    uint64_t n = read(demo_n);
    uint64_t size = read(demo_size);
    std::string mode = read(demo_mode);
    double rate = read(demo_rate);
    bool poll = read(demo_poll);
    std::string file = read(demo_file);
    bool quiet = read(demo_quiet);
    uint64_t mtu = read(demo_mtu);
    ASSERT_TRUE(read.ok()) << read.error();
    EXPECT_EQ(n, 100u);
    EXPECT_EQ(size, 4096u);
    EXPECT_EQ(mode, "paper");
    EXPECT_DOUBLE_EQ(rate, 0.25);
    EXPECT_TRUE(poll);
    EXPECT_EQ(file, "a.csv");
    EXPECT_TRUE(quiet);
    EXPECT_EQ(mtu, 1400u);
}

TEST(OptionRows, AbsentRowsReadAsTheirDefaults)
{
    opt::Reader read(demo_table(), {});
    EXPECT_EQ(read(demo_n), 16u);
    EXPECT_EQ(read(demo_size), 65536u);
    EXPECT_EQ(read(demo_mode), "robust");
    EXPECT_FALSE(read(demo_poll));
    EXPECT_FALSE(read(demo_quiet));
    EXPECT_EQ(read(demo_mtu), 0u); // auto
    EXPECT_FALSE(read.optional(demo_file).has_value());
    EXPECT_TRUE(read.ok()) << read.error();
    read(demo_file); // no default and not given
    EXPECT_EQ(read.error(), "--demo-file: required");
}

TEST(OptionRows, OutOfRangeAndMalformedValuesSayWhyInTheOneFormat)
{
    auto first_error = [](const OptionValues& values, auto read_one) {
        opt::Reader read(demo_table(), values);
        read_one(read);
        return read.error();
    };
    EXPECT_EQ(first_error({{"demo-n", "1"}}, [](opt::Reader& r) { r(demo_n); }), "--demo-n '1': must be in 2..10000");
    EXPECT_EQ(first_error({{"demo-n", "x"}}, [](opt::Reader& r) { r(demo_n); }),
              "--demo-n 'x': expected a whole number in 2..10000");
    EXPECT_EQ(first_error({{"demo-size", "2Gi"}}, [](opt::Reader& r) { r(demo_size); }),
              "--demo-size '2Gi': expected a size such as 4Ki in 1..1073741824 bytes");
    EXPECT_EQ(first_error({{"demo-mode", "fast"}}, [](opt::Reader& r) { r(demo_mode); }),
              "--demo-mode 'fast': expected robust, paper or none");
    EXPECT_EQ(first_error({{"demo-rate", "2"}}, [](opt::Reader& r) { r(demo_rate); }),
              "--demo-rate '2': must be in 0..1");
    EXPECT_EQ(first_error({{"demo-poll", "maybe"}}, [](opt::Reader& r) { r(demo_poll); }),
              "--demo-poll 'maybe': expected 0, 1, no, yes, false, true, off or on");
    EXPECT_EQ(first_error({{"demo-mtu", "9"}}, [](opt::Reader& r) { r(demo_mtu); }),
              "--demo-mtu '9': expected auto or a byte count in 17..65507");
}

TEST(OptionRows, ARowLeftOutOfTheTableIsRefusedNamingOptionAndPlugin)
{
    opt::Reader read(demo_table(), {{"demo-nn", "5"}});
    EXPECT_EQ(read(demo_nn), 0u);
    EXPECT_FALSE(read.ok());
    EXPECT_EQ(read.error(), "option --demo-nn is read by demo but not declared in its table of options");
    // given() of an undeclared row is refused too, rather than answering "absent".
    opt::Reader again(demo_table(), {{"demo-nn", "5"}});
    EXPECT_FALSE(again.given(demo_nn));
    EXPECT_FALSE(again.ok());
}

TEST(OptionRows, ARowOfAnotherTypeUnderADeclaredNameIsRefused)
{
    constexpr auto as_text = opt::row::text("demo-n", "16", "the same name, another type");
    opt::Reader read(demo_table(), {{"demo-n", "5"}});
    read(as_text);
    EXPECT_NE(read.error().find("--demo-n is read by demo but not declared"), std::string::npos) << read.error();
}

TEST(OptionRows, HelpShowsTypeAndRangeFromTheRow)
{
    std::vector<opt::OptionSpec> specs = demo_table().specs();
    ASSERT_EQ(specs.size(), 8u);
    EXPECT_EQ(specs[0].help, "messages n [whole number, 2..10000]");
    EXPECT_EQ(specs[0].default_value, "16");
    EXPECT_EQ(specs[1].help, "buffer [bytes, 1..1Gi]");
    EXPECT_EQ(specs[2].help, "detector [robust, paper or none]");
    EXPECT_EQ(specs[3].help, "share [number, 0..1]");
    EXPECT_EQ(specs[4].help, "spin [yes or no]");
    EXPECT_EQ(specs[5].help, "input");
    EXPECT_FALSE(specs[5].has_default);
    EXPECT_EQ(specs[6].kind, opt::OptionKind::flag);
    EXPECT_EQ(specs[7].help, "payload [auto or bytes, 17..65507]");
}

constexpr auto demo_sizes = opt::row::list("demo-sizes", opt::no_default, 1, uint64_t(1) << 30, true, "sizes");
constexpr auto demo_ranks = opt::row::list("demo-ranks", "2", 2, 4096, false, "ranks");
constexpr auto demo_files = opt::row::repeatable(opt::row::text("demo-files", opt::no_default, "inputs"));

opt::Table list_table()
{
    return {"demo", {demo_sizes, demo_ranks, demo_files}};
}

TEST(OptionRows, ListRowsReadOneValueARangeOrAList)
{
    auto sizes = [](const std::string& text) {
        opt::Reader read(list_table(), {{"demo-sizes", text}});
        std::vector<uint64_t> values = read(demo_sizes);
        EXPECT_TRUE(read.ok()) << read.error();
        return values;
    };
    EXPECT_EQ(sizes("4Ki"), (std::vector<uint64_t>{4096})); // one value is a list of one
    EXPECT_EQ(sizes("8-64"), (std::vector<uint64_t>{8, 16, 32, 64}));
    EXPECT_EQ(sizes("8-100"), (std::vector<uint64_t>{8, 16, 32, 64, 100})); // the end is included
    EXPECT_EQ(sizes("1Ki,8,64,8"), (std::vector<uint64_t>{8, 64, 1024}));   // sorted, no repeats
    opt::Reader defaults(list_table(), {});
    EXPECT_EQ(defaults(demo_ranks), (std::vector<uint64_t>{2}));
}

TEST(OptionRows, ABadListSaysWhyInTheOneFormat)
{
    auto error = [](const opt::Row& row, const std::string& text) {
        opt::Reader read(list_table(), {{std::string(row.long_name()), text}});
        read.optional(demo_sizes);
        read.optional(demo_ranks);
        return read.error();
    };
    EXPECT_EQ(error(demo_sizes, "8,x"),
              "--demo-sizes '8,x': expected a size such as 4Ki, a range 8-1Mi or a list 8,64,1Ki in 1..1Gi (at most "
              "100000 values)");
    EXPECT_NE(error(demo_sizes, "8,,64").find("--demo-sizes '8,,64': expected"), std::string::npos);
    EXPECT_NE(error(demo_sizes, "64-8").find("--demo-sizes '64-8': expected"), std::string::npos);
    EXPECT_NE(error(demo_sizes, "2Gi").find("in 1..1Gi"), std::string::npos);
    EXPECT_EQ(error(demo_ranks, "1,4"),
              "--demo-ranks '1,4': expected a count such as 16, a range 4-64 or a list 4,16,64 in 2..4096 (at most "
              "100000 values)");
    EXPECT_NE(error(demo_ranks, "4Ki").find("--demo-ranks '4Ki': expected a count"), std::string::npos); // no units
}

TEST(OptionRows, ARepeatableRowIsReadWholeInOrder)
{
    opt::Reader read(list_table(), {{"demo-files", "b.json"}, {"demo-sizes", "8"}, {"demo-files", "a.json"}});
    EXPECT_EQ(read.all(demo_files), (std::vector<std::string>{"b.json", "a.json"}));
    EXPECT_EQ(read(demo_files), "b.json"); // read() takes the first
    EXPECT_TRUE(read.ok()) << read.error();
    EXPECT_TRUE(read.all(demo_n).empty()); // not in this table: refused, like a single read
    EXPECT_FALSE(read.ok());
}

TEST(OptionRows, HelpShowsAListRowsTypeAndRange)
{
    std::vector<opt::OptionSpec> specs = list_table().specs();
    EXPECT_EQ(specs[0].help, "sizes [bytes or a list of them, 1..1Gi]");
    EXPECT_EQ(specs[1].help, "ranks [whole number or a list of them, 2..4096]");
    EXPECT_TRUE(specs[2].repeatable);
}

// A reader takes rows, never names: reading an option by a string (a name
// that may be misspelt) does not compile, so no such read can slip in.
template <typename R>
concept ReadsByName = requires(R read, std::string_view name)
{
    read(name);
}
|| requires(R read, std::string_view name)
{
    read.optional(name);
}
|| requires(R read, std::string_view name)
{
    read.all(name);
}
|| requires(R read, std::string_view name)
{
    read.text(name);
};
static_assert(!ReadsByName<opt::Reader>, "opt::Reader must read typed rows only");

TEST(ModuleOptionTable, CarriesTheRowsThroughTheCAbi)
{
    const mod::OptionTable table("demo", {demo_n, demo_file});
    ASSERT_EQ(table.size(), 2u);
    EXPECT_STREQ(table.specs()[0].name, "demo-n");
    EXPECT_STREQ(table.specs()[0].default_value, "16");
    EXPECT_STREQ(table.specs()[0].help, "messages n [whole number, 2..10000]");
    EXPECT_STREQ(table.specs()[1].name, "demo-file");
    EXPECT_EQ(table.specs()[1].default_value, nullptr); // absent unless given
}

ngx_init_args init_args(const std::vector<ngx_option_value>& options)
{
    ngx_init_args args{};
    args.size = sizeof args;
    args.options = options.data();
    args.option_count = options.size();
    args.timeout_ns = 1000000000;
    return args;
}

TEST(ModuleOptions, ReadsDeclaredRowsAndReportsABadValueAsInvalidOption)
{
    const mod::OptionTable table("demo", {demo_n, demo_file, demo_poll});
    std::vector<ngx_option_value> given = {{"demo-n", "20"}};
    ngx_init_args args = init_args(given);
    mod::ModuleOptions read(&args, table);
    EXPECT_EQ(read(demo_n), 20u);
    EXPECT_EQ(read(demo_file), ""); // a module reads an absent row without default as empty
    EXPECT_FALSE(read(demo_poll));  // absent: the row's default
    ngx_error err{};
    EXPECT_EQ(read.status(&err), NGX_OK);

    std::vector<ngx_option_value> bad = {{"demo-n", "1"}};
    ngx_init_args bad_args = init_args(bad);
    mod::ModuleOptions bad_read(&bad_args, table);
    bad_read(demo_n);
    EXPECT_EQ(bad_read.status(&err), NGX_ERR_INVALID_OPTION);
    EXPECT_STREQ(err.message, "--demo-n '1': must be in 2..10000");

    mod::ModuleOptions undeclared(&args, table);
    undeclared(demo_size);
    EXPECT_EQ(undeclared.status(&err), NGX_ERR_INVALID_OPTION);
    EXPECT_STREQ(err.message, "option --demo-size is read by demo but not declared in its table of options");
}

} // namespace
