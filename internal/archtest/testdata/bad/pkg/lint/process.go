package lint

import (
	"io"
	"log/slog"
	"os"
)

func where() []string {
	home, _ := os.UserHomeDir()
	cache, _ := os.UserCacheDir()
	config, _ := os.UserConfigDir()
	return append([]string{home, cache, config, os.ExpandEnv("$HOME")}, os.Args...)
}

func logs() {
	slog.Info("hello")
	slog.SetDefault(slog.New(slog.DiscardHandler))
}

// Look-alikes that touch no process state: a logger the caller gives, an
// attribute constructor, os.Expand with the caller's mapping.
func quiet(w io.Writer) string {
	l := slog.New(slog.NewTextHandler(w, nil))
	l.Info("hello", slog.String("k", "v"))
	return os.Expand("$X", func(string) string { return "" })
}
