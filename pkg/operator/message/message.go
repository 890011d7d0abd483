// Package message bounds the text the operator writes into status and events:
// what it reports may echo what a user wrote (an API error quoting a field, a
// container's termination message), so nothing it writes grows with the input.
package message

import (
	"fmt"
	"unicode/utf8"
)

// TruncatedMarker ends a message cut by Cap.
const TruncatedMarker = " ...[truncated]"

// elidedMarker starts a message cut by KeepEnd.
const elidedMarker = "[...] "

// Cap keeps msg whole when it fits in limit bytes, else its first bytes cut at
// a rune boundary and TruncatedMarker, limit bytes in all.
func Cap(msg string, limit int) string {
	if len(msg) <= limit {
		return msg
	}
	cut := limit - len(TruncatedMarker)
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:max(cut, 0)] + TruncatedMarker
}

// KeepEnd keeps msg whole when it fits in limit bytes, else its last bytes,
// from a rune boundary, after a marker: a log tail ends with the error that
// stopped the process.
func KeepEnd(msg string, limit int) string {
	if len(msg) <= limit {
		return msg
	}
	cut := len(msg) - max(limit-len(elidedMarker), 0)
	for cut < len(msg) && !utf8.RuneStart(msg[cut]) {
		cut++
	}
	return elidedMarker + msg[cut:]
}

// Bounded keeps msg whole when it fits in limit bytes, else its first bytes
// and how many more there were: a condition may list many problems.
func Bounded(msg string, limit int) string {
	if len(msg) <= limit {
		return msg
	}
	head := limit - 64
	return Cap(msg, head) + fmt.Sprintf(" (%d more bytes)", len(msg)-head)
}
