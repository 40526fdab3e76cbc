// The reporters of `ngx predict` (see prediction_report.hpp).
#include "prediction_report.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>

namespace ngx {
namespace {

// One column of the table and the CSV: its header (with its unit) and its
// cell of a prediction, "" where the prediction has none.
struct Column {
    const char* header;
    bool number; // right-aligned in the table
    std::function<std::string(const Prediction&, bool csv)> cell;
};

// A whole number as such (a byte count, a process count); any other number
// with six significant digits in the table, as JSON writes it in the CSV.
std::string number_text(double value, bool csv)
{
    if (std::isnan(value))
        return "";
    if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 9007199254740992.0)
        return std::to_string(int64_t(value));
    if (csv)
        return Json(value).dump();
    std::ostringstream out;
    out << value;
    return out.str();
}

Column number_column(const char* header, double Prediction::*field)
{
    return {header, true, [field](const Prediction& p, bool csv) { return number_text(p.*field, csv); }};
}

Column text_column(const char* header, std::string Prediction::*field)
{
    return {header, false, [field](const Prediction& p, bool) { return p.*field; }};
}

// How far the prediction is from the measurement, in percent of it.
std::string error_text(const Prediction& p, bool csv)
{
    if (!std::isfinite(p.time_us) || !(p.measured_us > 0))
        return "";
    return number_text(100 * (p.time_us - p.measured_us) / p.measured_us, csv);
}

// The predicted time; "-" in the table where the model cannot predict it.
std::string time_text(const Prediction& p, bool csv)
{
    return std::isnan(p.time_us) && !csv ? "-" : number_text(p.time_us, csv);
}

const std::vector<Column>& all_columns()
{
    static const std::vector<Column> columns = {
        text_column("model", &Prediction::model),
        text_column("variant", &Prediction::variant),
        text_column("op", &Prediction::op),
        text_column("tier", &Prediction::tier),
        text_column("algorithm", &Prediction::algorithm),
        number_column("bytes", &Prediction::bytes),
        number_column("P", &Prediction::processes),
        number_column("n", &Prediction::messages),
        number_column("d_us", &Prediction::delay_us),
        number_column("stride", &Prediction::stride),
        number_column("k", &Prediction::pairs),
        {"time_us", true, time_text},
        number_column("measured_us", &Prediction::measured_us),
        {"error_pct", true, error_text},
    };
    return columns;
}

// The columns some prediction has a value in (time_us always: "-" where the
// model cannot predict).
std::vector<const Column*> present_columns(const std::vector<Prediction>& rows)
{
    std::vector<const Column*> present;
    for (const Column& column : all_columns()) {
        const bool any =
            std::any_of(rows.begin(), rows.end(), [&](const Prediction& p) { return !column.cell(p, false).empty(); });
        if (any)
            present.push_back(&column);
    }
    return present;
}

std::string csv_field(const std::string& text)
{
    if (text.find_first_of(",\"\n") == std::string::npos)
        return text;
    std::string quoted = "\"";
    for (char c : text)
        quoted.append(c == '"' ? 2 : 1, c);
    return quoted.append(1, '"');
}

std::string padded(const std::string& text, size_t width, bool right)
{
    const std::string fill(width - std::min(width, text.size()), ' ');
    return right ? fill + text : text + fill;
}

} // namespace

PredictionFormat prediction_format(const std::string& name)
{
    if (name == "json")
        return PredictionFormat::json;
    return name == "csv" ? PredictionFormat::csv : PredictionFormat::table;
}

std::string prediction_table(const Predictions& predictions)
{
    std::ostringstream out;
    for (const std::string& note : predictions.notes)
        out << "# " << note << "\n";
    if (predictions.rows.empty())
        return out.str();
    const std::vector<const Column*> columns = present_columns(predictions.rows);
    std::vector<std::vector<std::string>> cells(1);
    for (const Column* column : columns)
        cells.front().push_back(column->header);
    for (const Prediction& p : predictions.rows) {
        cells.emplace_back();
        for (const Column* column : columns)
            cells.back().push_back(column->cell(p, false));
    }
    std::vector<size_t> widths(columns.size(), 0);
    for (const std::vector<std::string>& line : cells)
        for (size_t i = 0; i < line.size(); ++i)
            widths[i] = std::max(widths[i], line[i].size());
    for (const std::vector<std::string>& line : cells) {
        std::string text;
        for (size_t i = 0; i < line.size(); ++i)
            text.append(i == 0 ? "" : "  ").append(padded(line[i], widths[i], columns[i]->number));
        out << text.erase(text.find_last_not_of(' ') + 1) << "\n";
    }
    return out.str();
}

Json prediction_document(const std::string& model, const std::string& op, const Predictions& predictions)
{
    const Json base = predictions_json(model, op, predictions.rows);
    Json document = {{"model", base["model"]}, {"op", base["op"]}};
    for (const auto& [key, value] : predictions.about.items())
        document[key] = value;
    document["predictions"] = base["predictions"];
    for (const auto& [key, value] : predictions.summary.items())
        document[key] = value;
    if (!predictions.notes.empty())
        document["notes"] = predictions.notes;
    return document;
}

std::string prediction_csv(const Predictions& predictions)
{
    const std::vector<const Column*> columns = present_columns(predictions.rows);
    std::string out;
    for (size_t i = 0; i < columns.size(); ++i)
        out.append(i == 0 ? "" : ",").append(columns[i]->header);
    out += "\n";
    for (const Prediction& p : predictions.rows) {
        for (size_t i = 0; i < columns.size(); ++i) {
            out.append(i == 0 ? "" : ",").append(csv_field(columns[i]->cell(p, true)));
        }
        out += "\n";
    }
    return out;
}

std::string prediction_report(PredictionFormat format, const std::string& model, const std::string& op,
                              const Predictions& predictions)
{
    if (!predictions.text.empty())
        return predictions.text;
    if (format == PredictionFormat::json)
        return prediction_document(model, op, predictions).dump(2) + "\n";
    if (format == PredictionFormat::csv)
        return prediction_csv(predictions);
    return prediction_table(predictions);
}

} // namespace ngx
