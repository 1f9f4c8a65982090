package lint

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Command is one simple command a script runs.
type Command struct {
	// Name is the program run, after unwrapping sudo, env, exec, nohup,
	// timeout and similar wrappers; "" when it is not a literal word.
	Name string
	// Args are the arguments after Name; non-literal words are "".
	Args []string
	// Pos is where the command (its name) is.
	Pos syntax.Pos
	// Assigns are the NAME=value prefixes of the command.
	Assigns []*syntax.Assign
	// Call is the parsed command.
	Call *syntax.CallExpr
}

// Sub returns the first argument that is not a flag, e.g. "clone" for
// "git -C dir clone url"; flags that take a value are not recognised.
func (c Command) Sub() string {
	for _, a := range c.Args {
		if a != "" && !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// HasArg reports whether any argument equals a.
func (c Command) HasArg(a string) bool {
	for _, x := range c.Args {
		if x == a {
			return true
		}
	}
	return false
}

// wrappers are programs that run their arguments as a command.
var wrappers = map[string]bool{
	"sudo": true, "env": true, "exec": true, "nohup": true, "timeout": true, "nice": true, "time": true,
	"command": true, "xargs": true, "stdbuf": true, "setsid": true, "runuser": true, "doas": true, "builtin": true,
}

// Commands returns every simple command the script runs, in order.
func (s *Script) Commands() []Command {
	var out []Command
	syntax.Walk(s.File, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		words := make([]string, len(call.Args))
		for i, w := range call.Args {
			words[i], _ = WordText(w)
		}
		i := 0
		for i < len(words) && wrappers[base(words[i])] {
			w := base(words[i])
			if w == "command" && i+1 < len(words) && (words[i+1] == "-v" || words[i+1] == "-V") {
				return true // a lookup, not a run
			}
			i++
			for i < len(words) && (strings.HasPrefix(words[i], "-") || strings.Contains(words[i], "=") && w == "env" ||
				w == "timeout" && isDuration(words[i])) {
				i++
			}
		}
		if i >= len(words) {
			return true
		}
		out = append(out, Command{Name: base(words[i]), Args: words[i+1:], Pos: call.Args[i].Pos(), Assigns: call.Assigns, Call: call})
		return true
	})
	return out
}

// WordText returns the value of a word made only of literal text (plain,
// single- or double-quoted), and false when it holds an expansion.
func WordText(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

func base(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

func isDuration(s string) bool {
	s = strings.TrimRight(s, "smhd")
	if s == "" {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && r != '.' {
			return false
		}
	}
	return true
}

// VarRef is a read of a shell variable.
type VarRef struct {
	Name string
	Pos  syntax.Pos
	// Defaulted reports ${NAME:-word} and similar forms that supply a
	// value when the variable is unset.
	Defaulted bool
}

// shellVars are set by the shell itself, not taken from the environment.
var shellVars = map[string]bool{
	"RANDOM": true, "LINENO": true, "SECONDS": true, "PIPESTATUS": true, "FUNCNAME": true, "UID": true, "EUID": true,
	"PPID": true, "IFS": true, "OPTARG": true, "OPTIND": true, "REPLY": true, "HOSTTYPE": true, "OSTYPE": true,
	"MACHTYPE": true, "BASHPID": true, "GROUPS": true, "SHELLOPTS": true, "BASHOPTS": true, "PS1": true, "PS2": true,
	"PS3": true, "PS4": true, "BASH": true, "BASH_VERSION": true, "BASH_SOURCE": true, "BASH_LINENO": true,
	"BASH_REMATCH": true, "BASH_ARGV": true, "BASH_ARGC": true, "BASH_COMMAND": true, "BASH_SUBSHELL": true,
	"BASH_VERSINFO": true, "EPOCHSECONDS": true, "EPOCHREALTIME": true, "COLUMNS": true, "LINES": true,
}

// Reads returns the variables the script reads from its environment: every
// $NAME and ${NAME…} except special and positional parameters, variables
// the shell sets itself, and variables the script assigns (assignments,
// for and select variables, read/mapfile/getopts/printf -v targets,
// declare/local/export with a value).
func (s *Script) Reads() []VarRef {
	assigned := map[string]bool{}
	for _, a := range s.Assignments() {
		assigned[a.Name] = true
	}
	var out []VarRef
	syntax.Walk(s.File, func(n syntax.Node) bool {
		pe, ok := n.(*syntax.ParamExp)
		if !ok || pe.Param == nil {
			return true
		}
		name := pe.Param.Value
		if !isVarName(name) || shellVars[name] || assigned[name] || pe.Excl && pe.Names != 0 {
			return true
		}
		ref := VarRef{Name: name, Pos: pe.Param.Pos()}
		if e := pe.Exp; e != nil {
			switch e.Op {
			case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull,
				syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
				ref.Defaulted = true
			}
		}
		out = append(out, ref)
		return true
	})
	return out
}

func isVarName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// Assignment is a variable the script sets.
type Assignment struct {
	Name string
	Pos  syntax.Pos
	// Exported reports export/declare -x, or a NAME=value prefix of a
	// command (which exports it to that command).
	Exported bool
	// Value is the literal value, or "" when it is not literal.
	Value string
	// Literal reports a value made only of literal text.
	Literal bool
	// HasValue is false for a bare "export NAME".
	HasValue bool
}

// Assignments returns every variable the script sets.
func (s *Script) Assignments() []Assignment {
	var out []Assignment
	add := func(a *syntax.Assign, exported bool) {
		if a == nil || a.Name == nil {
			return
		}
		as := Assignment{Name: a.Name.Value, Pos: a.Name.Pos(), Exported: exported, HasValue: !a.Naked}
		if a.Value != nil {
			as.Value, as.Literal = WordText(a.Value)
		}
		out = append(out, as)
	}
	syntax.Walk(s.File, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			for _, a := range n.Assigns {
				add(a, len(n.Args) > 0)
			}
			if len(n.Args) > 1 {
				s.commandTargets(n, func(name string, p syntax.Pos) {
					out = append(out, Assignment{Name: name, Pos: p})
				})
			}
		case *syntax.DeclClause:
			exported := n.Variant != nil && n.Variant.Value == "export"
			for _, a := range n.Args {
				if !exported {
					for _, w := range declFlags(n) {
						if strings.Contains(w, "x") {
							exported = true
						}
					}
				}
				if a.Naked && a.Name == nil {
					continue // a flag such as -x
				}
				add(a, exported)
			}
		case *syntax.WordIter:
			if n.Name != nil {
				out = append(out, Assignment{Name: n.Name.Value, Pos: n.Name.Pos()})
			}
		case *syntax.ArithmCmd, *syntax.ArithmExp:
			syntax.Walk(n, func(m syntax.Node) bool {
				if b, ok := m.(*syntax.BinaryArithm); ok && b.Op >= syntax.Assgn && b.Op <= syntax.ShrAssgn {
					if w, ok := b.X.(*syntax.Word); ok {
						out = append(out, Assignment{Name: w.Lit(), Pos: w.Pos()})
					}
				}
				return true
			})
		}
		return true
	})
	return out
}

func declFlags(d *syntax.DeclClause) []string {
	var out []string
	for _, a := range d.Args {
		if a.Naked && a.Name == nil && a.Value != nil {
			if l := a.Value.Lit(); strings.HasPrefix(l, "-") {
				out = append(out, l)
			}
		}
	}
	return out
}

// commandTargets reports the variables commands like read, mapfile,
// getopts and printf -v write.
func (s *Script) commandTargets(c *syntax.CallExpr, fn func(string, syntax.Pos)) {
	name := c.Args[0].Lit()
	args := c.Args[1:]
	switch name {
	case "read", "mapfile", "readarray":
		for i, w := range args {
			l := w.Lit()
			if strings.HasPrefix(l, "-") {
				if l == "-d" || l == "-n" || l == "-N" || l == "-p" || l == "-t" || l == "-u" || l == "-a" || l == "-C" || l == "-c" || l == "-s" || l == "-O" {
					if l == "-a" && i+1 < len(args) {
						fn(args[i+1].Lit(), args[i+1].Pos())
					}
				}
				continue
			}
			if isVarName(l) {
				fn(l, w.Pos())
			}
		}
	case "getopts":
		if len(args) >= 2 {
			fn(args[1].Lit(), args[1].Pos())
		}
	case "printf":
		if len(args) >= 2 && args[0].Lit() == "-v" {
			fn(args[1].Lit(), args[1].Pos())
		}
	}
}
