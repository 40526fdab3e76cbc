// A fitted parameter as the models' JSON writes it: its value and its 95%
// confidence interval, nulls where undefined.
#ifndef NGX_PATTERNS_MODEL_JSON_HPP
#define NGX_PATTERNS_MODEL_JSON_HPP

#include <models/base/measured.hpp>
#include <ngx/record.hpp>

namespace ngx::patterns {

inline Json measured_json(const fit::Measured& m)
{
    return {{"value", json_number(m.value)}, {"ci95", {json_number(m.lower), json_number(m.upper)}}};
}

} // namespace ngx::patterns

#endif
