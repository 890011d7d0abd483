package message

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCap(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"short", "short"},
		{strings.Repeat("a", 40), strings.Repeat("a", 40)},
		{strings.Repeat("a", 41), strings.Repeat("a", 40-len(TruncatedMarker)) + TruncatedMarker},
		{strings.Repeat("é", 30), strings.Repeat("é", 12) + TruncatedMarker}, // 25 bytes leave room for 12 two-byte runes
	} {
		if got := Cap(tc.in, 40); got != tc.want || len(got) > 40 {
			t.Errorf("Cap(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := Cap("short", 10); got != "short" {
		t.Errorf("Cap kept %q of a message that fits", got)
	}
	long := strings.Repeat("é", 100) // two bytes each
	got := Cap(long, 51)
	if len(got) > 51 || !strings.HasSuffix(got, TruncatedMarker) || !utf8.ValidString(got) {
		t.Errorf("Cap(…, 51) = %q (%d bytes): want at most 51 valid UTF-8 bytes ending in the marker", got, len(got))
	}
}

func TestKeepEnd(t *testing.T) {
	if got := KeepEnd("short", 10); got != "short" {
		t.Errorf("KeepEnd kept %q of a message that fits", got)
	}
	log := strings.Repeat("é", 100) + "the error"
	got := KeepEnd(log, 40)
	if len(got) > 40 || !strings.HasSuffix(got, "the error") || !strings.HasPrefix(got, elidedMarker) || !utf8.ValidString(got) {
		t.Errorf("KeepEnd(…, 40) = %q (%d bytes): want at most 40 valid UTF-8 bytes ending in the error", got, len(got))
	}
}

func TestBounded(t *testing.T) {
	if got := Bounded("short", 100); got != "short" {
		t.Errorf("Bounded changed a short message: %q", got)
	}
	got := Bounded(strings.Repeat("problem\n", 5000), 8192)
	if len(got) > 8192 || !strings.Contains(got, "[truncated]") || !strings.HasSuffix(got, "more bytes)") {
		t.Errorf("bounded message of %d bytes ends %q", len(got), got[len(got)-60:])
	}
}
