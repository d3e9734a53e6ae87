import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reads a `Retry-After` header field (RFC 9110 §10.2.3): delay-seconds, or
/// an HTTP-date in any of the three forms a recipient must accept.
enum RetryAfter {
    /// The seconds to wait that `response` asks for, or `nil` when it has no
    /// readable `Retry-After`. A date in the past gives 0.
    static func delay(in response: ResponseHead?, now: Date = Date()) -> Double? {
        guard let value = response?.value(forHTTPHeaderField: "Retry-After") else { return nil }
        return delay(from: value, now: now)
    }

    /// The seconds to wait for one `Retry-After` value.
    static func delay(from value: String, now: Date) -> Double? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) {
            return Double(text)
        }
        guard let date = date(from: text, now: now) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    /// An HTTP-date: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 850
    /// (`Sunday, 06-Nov-94 08:49:37 GMT`) or asctime (`Sun Nov  6 08:49:37 1994`).
    static func date(from text: String, now: Date) -> Date? {
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        let day: Int?, month: Int?, year: Int?, time: String
        switch tokens.count {
        case 6 where tokens[5] == "GMT":            // IMF-fixdate
            (day, month, year, time) = (Int(tokens[1]), monthNumber(tokens[2]), Int(tokens[3]), tokens[4])
        case 4 where tokens[3] == "GMT":            // RFC 850
            let parts = tokens[1].split(separator: "-").map(String.init)
            guard parts.count == 3, let short = Int(parts[2]) else { return nil }
            (day, month, year, time) = (Int(parts[0]), monthNumber(parts[1]), fullYear(short, now: now), tokens[2])
        case 5:                                     // asctime
            (day, month, year, time) = (Int(tokens[2]), monthNumber(tokens[1]), Int(tokens[4]), tokens[3])
        default:
            return nil
        }
        let clock = time.split(separator: ":").compactMap { Int($0) }
        guard let day, let month, let year, (1...9999).contains(year), clock.count == 3, (1...31).contains(day),
              (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2])
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + clock[0] * 3_600 + clock[1] * 60 + clock[2]
        return Date(timeIntervalSince1970: Double(seconds))
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    private static func monthNumber(_ name: String) -> Int? {
        months.firstIndex(of: name.lowercased()).map { $0 + 1 }
    }

    /// RFC 9110: a two-digit year more than 50 years in the future is the
    /// most recent past year with those digits.
    private static func fullYear(_ short: Int, now: Date) -> Int {
        guard short < 100 else { return short }
        let currentYear = 1970 + Int(now.timeIntervalSince1970 / 31_556_952)
        var year = currentYear - currentYear % 100 + short
        if year > currentYear + 50 { year -= 100 }
        return year
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
