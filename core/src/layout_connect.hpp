// How the session connects a module for a pattern: the classic pairwise
// connect, or, for a pattern that walks rank layouts (PatternInfo::layouts),
// a set-up-only connect (module ABI 1.5: a view whose peer is the rank
// itself), the pattern then opening one link per peer through PeerLinks.
//
//     NGX_TRY(connect_for_pattern(transport, boot, pattern_info));
#ifndef NGX_LAYOUT_CONNECT_HPP
#define NGX_LAYOUT_CONNECT_HPP

#include <ngx/bootstrap.hpp>
#include <ngx/pattern.hpp>
#include <ngx/transport.hpp>

namespace ngx {

// A module without per-peer links cannot run a layout pattern: a usage
// error that names the module, the pattern and its layout.
Status connect_for_pattern(Transport& transport, Bootstrap& boot, const PatternInfo& pattern);

} // namespace ngx

#endif
