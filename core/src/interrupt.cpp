// SIGINT/SIGTERM handling (see interrupt.hpp). The handlers are installed
// without SA_RESTART so a blocking system call returns EINTR and the module
// sees the flag at once.
#include "interrupt.hpp"

#include <csignal>

namespace ngx {
namespace {

volatile sig_atomic_t interrupt_flag = 0;
volatile sig_atomic_t interrupt_signal = 0;

void on_signal(int number)
{
    interrupt_signal = number;
    interrupt_flag = 1;
}

void install(void (*handler)(int))
{
    struct sigaction action {};
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

} // namespace

static_assert(sizeof(sig_atomic_t) == sizeof(int), "the cancel flag of the module ABI is an int");

InterruptGuard::InterruptGuard()
{
    interrupt_flag = 0;
    interrupt_signal = 0;
    install(on_signal);
    std::signal(SIGPIPE, SIG_IGN);
}

InterruptGuard::~InterruptGuard()
{
    install(SIG_DFL);
}

const volatile int* InterruptGuard::flag() const
{
    return &interrupt_flag;
}

bool interrupt_requested()
{
    return interrupt_flag != 0;
}

int InterruptGuard::signal_number() const
{
    return interrupt_signal;
}

} // namespace ngx
