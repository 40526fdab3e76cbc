// Contention on one shared link (contention.hpp): LoGPC's idea (Moritz and
// Frank 1998/2001) priced with the max-rate model (Gropp et al. 2016).
#include <models/contention/contention.hpp>

#include <algorithm>
#include <charconv>
#include <string>

namespace ngx::fit {

Result<std::vector<int>> parse_switches(std::string_view text, long long ranks)
{
    std::vector<int> at;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = std::min(text.find(',', start), text.size());
        const std::string_view word = text.substr(start, comma - start);
        if (word != "0" && word != "1")
            return invalid_input("switch '" + std::string(word) + "' of rank " + std::to_string(at.size()) +
                                 ": each rank's switch is 0 or 1 (two switches, one uplink)");
        at.push_back(word == "1" ? 1 : 0);
        start = comma + 1;
    }
    if ((long long)at.size() != ranks)
        return invalid_input(std::to_string(at.size()) + " switches listed for " + std::to_string(ranks) +
                             " ranks: one per rank, in rank order");
    if (std::count(at.begin(), at.end(), 0) == 0 || std::count(at.begin(), at.end(), 1) == 0)
        return invalid_input("every rank on one switch: no message crosses the uplink");
    return at;
}

namespace {

// The indices of each rank's sends and receives, in list order.
struct Lists {
    std::vector<std::vector<int>> sends, recvs;
};

Lists lists_of(const Schedule& s)
{
    Lists l{std::vector<std::vector<int>>(s.ranks.size()), std::vector<std::vector<int>>(s.ranks.size())};
    for (size_t r = 0; r < s.ranks.size(); ++r)
        for (size_t i = 0; i < s.ranks[r].size(); ++i) {
            if (s.ranks[r][i].kind == ScheduleOp::Kind::send)
                l.sends[r].push_back(int(i));
            else if (s.ranks[r][i].kind == ScheduleOp::Kind::recv)
                l.recvs[r].push_back(int(i));
        }
    return l;
}

} // namespace

Result<ContentionPrice> price_contention(const Schedule& schedule, const std::vector<int>& switch_of,
                                         const MaxRateParams& link)
{
    if (switch_of.size() != schedule.ranks.size())
        return invalid_input(std::to_string(switch_of.size()) + " switches for a schedule of " +
                             std::to_string(schedule.ranks.size()) + " ranks");
    if (!(link.R_Cb > 0) || !(link.R_N > 0))
        return invalid_input("the shared link's max-rate fit needs positive R_C and R_N");
    const Lists l = lists_of(schedule);
    size_t rounds = 0;
    for (size_t r = 0; r < schedule.ranks.size(); ++r) {
        rounds = std::max(rounds, l.sends[r].size());
        for (size_t j = 0; j < l.sends[r].size(); ++j) {
            const ScheduleOp& send = schedule.ranks[r][l.sends[r][j]];
            const std::vector<int>& theirs = l.recvs[size_t(send.peer)];
            if (j >= theirs.size() || theirs[j] != send.match)
                return invalid_input("the schedule has no rounds: rank " + std::to_string(r) + "'s send " +
                                     std::to_string(j) + " is not rank " + std::to_string(send.peer) + "'s receive " +
                                     std::to_string(j));
        }
    }
    ContentionPrice price;
    for (size_t j = 0; j < rounds; ++j) {
        ContentionRound round;
        for (size_t r = 0; r < schedule.ranks.size(); ++r) {
            if (j >= l.sends[r].size())
                continue;
            const ScheduleOp& send = schedule.ranks[r][l.sends[r][j]];
            const int from = switch_of[r], to = switch_of[size_t(send.peer)];
            if (from != to) {
                round.flows[from] += 1;
                round.bytes[from] += send.bytes;
                round.largest[from] = std::max(round.largest[from], send.bytes);
            }
        }
        // LoGPC's contention delay (Moritz and Frank 2001), the link's rates
        // by max-rate (Gropp et al. 2016): B / min(R_N, c R_C) - b / min(R_N, R_C).
        for (int d = 0; d < 2; ++d)
            if (round.flows[d] > 0)
                round.delay_us = std::max(round.delay_us,
                                          round.bytes[d] / link.rate(round.flows[d]) - round.largest[d] / link.rate(1));
        price.delay_us += round.delay_us;
        price.rounds.push_back(round);
    }
    return price;
}

} // namespace ngx::fit
