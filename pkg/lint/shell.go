package lint

import (
	"sort"
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
	// ArgWords are the parsed words of Args, one for each; nil for a
	// direct exec hook's argv.
	ArgWords []*syntax.Word
	// Pos is where the command (its name) is.
	Pos syntax.Pos
	// End is where the command's name ends.
	End syntax.Pos
	// Assigns are the NAME=value prefixes of the command, and the
	// NAME=value arguments of an env wrapper.
	Assigns []*syntax.Assign
	// EnvAssigns are the NAME=value words given to an env wrapper
	// ("env NO_PROXY=x curl …"), which set variables like Assigns do.
	EnvAssigns []*syntax.Word
	// Background reports a command sent to the background: "cmd &", or
	// run under nohup or setsid.
	Background bool
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

// wrappers are programs that run their arguments as a command, with the
// flags of each that take a value (so that "sudo -u agent npm i" runs npm,
// not agent).
var wrappers = map[string]map[string]bool{
	"sudo":     {"-u": true, "-g": true, "-C": true, "-D": true, "-h": true, "-p": true, "-r": true, "-t": true, "-U": true, "-T": true},
	"doas":     {"-u": true, "-C": true},
	"env":      {"-u": true, "-C": true, "-S": true, "--unset": true, "--chdir": true},
	"exec":     {"-a": true},
	"nohup":    {},
	"timeout":  {"-s": true, "-k": true, "--signal": true, "--kill-after": true},
	"nice":     {"-n": true, "--adjustment": true},
	"ionice":   {"-c": true, "-n": true, "-p": true},
	"time":     {"-f": true, "-o": true},
	"command":  {},
	"builtin":  {},
	"xargs":    {"-n": true, "-P": true, "-I": true, "-d": true, "-L": true, "-s": true, "-a": true, "-E": true},
	"stdbuf":   {"-i": true, "-o": true, "-e": true},
	"setsid":   {},
	"runuser":  {"-u": true, "-g": true, "-G": true},
	"chronic":  {},
	"unbuffer": {},
}

// Commands returns every simple command the script runs, in order. The
// slice is shared: do not modify it.
func (s *Script) Commands() []Command {
	if s.computed&computedCommands == 0 {
		s.computed |= computedCommands
		s.commands = s.findCommands()
	}
	return s.commands
}

func (s *Script) findCommands() []Command {
	var out []Command
	background := map[*syntax.CallExpr]bool{}
	syntax.Walk(s.File, func(n syntax.Node) bool {
		if st, ok := n.(*syntax.Stmt); ok && st.Background {
			if call, ok := st.Cmd.(*syntax.CallExpr); ok {
				background[call] = true
			}
		}
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		if c, ok := unwrap(call); ok {
			c.Background = c.Background || background[call]
			out = append(out, c)
		}
		return true
	})
	return out
}

// unwrap finds the program a call runs behind its wrappers.
func unwrap(call *syntax.CallExpr) (Command, bool) {
	words := make([]string, len(call.Args))
	for i, w := range call.Args {
		words[i], _ = WordText(w)
	}
	c := Command{Assigns: call.Assigns, Call: call}
	i := 0
	for i < len(words) {
		w := base(words[i])
		flags, ok := wrappers[w]
		if !ok {
			break
		}
		if w == "command" && i+1 < len(words) && (words[i+1] == "-v" || words[i+1] == "-V") {
			return Command{}, false // a lookup, not a run
		}
		if w == "nohup" || w == "setsid" {
			c.Background = true
		}
		i++
		for i < len(words) {
			a := words[i]
			switch {
			case flags[a]:
				i += 2
				continue
			case strings.HasPrefix(a, "-") && a != "-":
			case w == "env" && isAssignWord(a):
				c.EnvAssigns = append(c.EnvAssigns, call.Args[i])
			case w == "timeout" && isDuration(a):
			case w == "nice" && isNumber(strings.TrimPrefix(a, "-")):
			default:
				goto next
			}
			i++
		}
	next:
	}
	if i >= len(words) {
		return Command{}, false
	}
	if pythonModuleRun(words[i:]) {
		i += 2 // python3 -m pip install …: pip runs
	}
	c.Name = base(words[i])
	c.Args = words[i+1:]
	c.ArgWords = call.Args[i+1:]
	c.Pos, c.End = call.Args[i].Pos(), call.Args[i].End()
	return c, true
}

// pythonModuleRun reports "python3 -m pip …" and the like: a package tool
// run as a Python module, which the rules judge as the tool itself.
func pythonModuleRun(words []string) bool {
	if len(words) < 3 || words[1] != "-m" || !strings.HasPrefix(base(words[0]), "python") {
		return false
	}
	switch words[2] {
	case "pip", "pip3", "pipx", "uv":
		return true
	}
	return false
}

// isAssignWord reports a NAME=value word.
func isAssignWord(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	return ok && isVarName(name)
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
	return isNumber(strings.TrimRight(s, "smhd"))
}

func isNumber(s string) bool {
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
	// Name is the variable's name.
	Name string
	// Pos is where the expansion starts (its $, or the name in an
	// arithmetic expression); End is where it ends.
	Pos, End syntax.Pos
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
	"MAPFILE": true, "COMP_WORDS": true, "COPROC": true, "_": true,
}

// firstEval returns where the script first runs eval, whose code may
// assign any variable; an invalid Pos when it never does.
func (s *Script) firstEval() syntax.Pos {
	var at syntax.Pos
	for _, c := range s.Commands() {
		if c.Name == "eval" && (!at.IsValid() || at.After(c.Pos)) {
			at = c.Pos
		}
	}
	return at
}

// Reads returns the variables the script reads from its environment: every
// $NAME and ${NAME…}, and bare names in arithmetic, except special and
// positional parameters, variables the shell sets itself, and variables
// the script assigns (assignments, for and select variables,
// read/mapfile/getopts/printf -v targets, declare/local/export, arithmetic
// assignments). Text in single quotes and quoted here-documents is not
// expanded, so it reads nothing. The slice is shared: do not modify it.
func (s *Script) Reads() []VarRef {
	if s.computed&computedReads == 0 {
		s.computed |= computedReads
		s.reads = s.findReads()
	}
	return s.reads
}

func (s *Script) findReads() []VarRef {
	assigned := map[string]bool{}
	for _, a := range s.Assignments() {
		assigned[a.Name] = true
	}
	keep := func(name string) bool { return isVarName(name) && !shellVars[name] && !assigned[name] }
	var out []VarRef
	syntax.Walk(s.File, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ParamExp:
			if n.Param == nil || n.Excl && n.Names != 0 || !keep(n.Param.Value) {
				return true
			}
			ref := VarRef{Name: n.Param.Value, Pos: n.Dollar, End: n.End()}
			if e := n.Exp; e != nil {
				switch e.Op {
				case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull,
					syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
					ref.Defaulted = true
				}
			}
			out = append(out, ref)
		case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.CStyleLoop, *syntax.LetClause:
			out = append(out, arithmReads(n, keep)...)
		}
		return true
	})
	return dedupeRefs(out)
}

// arithmReads returns the bare variable names an arithmetic expression
// reads ("$(( PORT + 1 ))").
func arithmReads(n syntax.Node, keep func(string) bool) []VarRef {
	var out []VarRef
	syntax.Walk(n, func(m syntax.Node) bool {
		switch m := m.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst:
			return false // visited by the outer walk
		case *syntax.Word:
			if len(m.Parts) == 1 {
				if l, ok := m.Parts[0].(*syntax.Lit); ok && keep(l.Value) {
					out = append(out, VarRef{Name: l.Value, Pos: l.Pos(), End: l.End()})
				}
			}
		}
		return true
	})
	return out
}

// dedupeRefs sorts reads by position and drops a read reported twice at
// one position (arithmetic nested in arithmetic).
func dedupeRefs(refs []VarRef) []VarRef {
	sort.SliceStable(refs, func(i, j int) bool { return refs[i].Pos.Offset() < refs[j].Pos.Offset() })
	seen := map[syntax.Pos]bool{}
	out := refs[:0]
	for _, r := range refs {
		if !seen[r.Pos] {
			seen[r.Pos] = true
			out = append(out, r)
		}
	}
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
	// Name is the variable's name.
	Name string
	// Pos is where the name is.
	Pos syntax.Pos
	// Exported reports export/declare -x, a NAME=value prefix of a command
	// (which exports it to that command), or an env wrapper's NAME=value.
	Exported bool
	// Value is the literal value, or "" when it is not literal.
	Value string
	// ValuePos and ValueEnd delimit the value; invalid when there is none.
	ValuePos, ValueEnd syntax.Pos
	// Word is the value as parsed, or nil.
	Word *syntax.Word
	// Literal reports a value made only of literal text.
	Literal bool
	// HasValue is false for a bare "export NAME".
	HasValue bool
}

// Assignments returns every variable the script sets. The slice is
// shared: do not modify it.
func (s *Script) Assignments() []Assignment {
	if s.computed&computedAssignments == 0 {
		s.computed |= computedAssignments
		s.assignments = s.findAssignments()
	}
	return s.assignments
}

func (s *Script) findAssignments() []Assignment {
	var out []Assignment
	add := func(a *syntax.Assign, exported bool) {
		if a == nil || a.Name == nil {
			return
		}
		as := Assignment{Name: a.Name.Value, Pos: a.Name.Pos(), Exported: exported, HasValue: !a.Naked}
		if a.Value != nil {
			as.Word = a.Value
			as.Value, as.Literal = WordText(a.Value)
			as.ValuePos, as.ValueEnd = a.Value.Pos(), a.Value.End()
		} else if !a.Naked {
			as.Literal = true // NAME= sets the empty string
		}
		out = append(out, as)
	}
	syntax.Walk(s.File, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			for _, a := range n.Assigns {
				add(a, len(n.Args) > 0)
			}
			if c, ok := unwrap(n); ok {
				for _, w := range c.EnvAssigns {
					out = append(out, envAssignment(w))
				}
			}
			if len(n.Args) > 1 {
				s.commandTargets(n, func(name string, p syntax.Pos) {
					out = append(out, Assignment{Name: name, Pos: p})
				})
			}
		case *syntax.DeclClause:
			exported := n.Variant != nil && n.Variant.Value == "export"
			for _, w := range declFlags(n) {
				if strings.Contains(w, "x") {
					exported = true
				}
			}
			for _, a := range n.Args {
				if a.Naked && a.Name == nil {
					continue // a flag such as -x
				}
				add(a, exported)
			}
		case *syntax.WordIter:
			if n.Name != nil {
				out = append(out, Assignment{Name: n.Name.Value, Pos: n.Name.Pos()})
			}
		case *syntax.BinaryArithm:
			if n.Op >= syntax.Assgn && n.Op <= syntax.ShrAssgn {
				if w, ok := n.X.(*syntax.Word); ok && isVarName(w.Lit()) {
					out = append(out, Assignment{Name: w.Lit(), Pos: w.Pos()})
				}
			}
		case *syntax.UnaryArithm:
			if n.Op == syntax.Inc || n.Op == syntax.Dec {
				if w, ok := n.X.(*syntax.Word); ok && isVarName(w.Lit()) {
					out = append(out, Assignment{Name: w.Lit(), Pos: w.Pos()})
				}
			}
		}
		return true
	})
	return out
}

// envAssignment reads the NAME=value argument of an env wrapper.
func envAssignment(w *syntax.Word) Assignment {
	text, literal := WordText(w)
	if !literal {
		// The name is a literal prefix; the value holds an expansion.
		if l, ok := w.Parts[0].(*syntax.Lit); ok {
			text = l.Value
		}
	}
	name, value, _ := strings.Cut(text, "=")
	a := Assignment{Name: name, Pos: w.Pos(), Exported: true, HasValue: true, Literal: literal, Word: w, ValueEnd: w.End()}
	if literal {
		a.Value = value
	}
	a.ValuePos = syntax.NewPos(w.Pos().Offset()+uint(len(name)+1), w.Pos().Line(), w.Pos().Col()+uint(len(name)+1))
	return a
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

// valueFlags are the flags of read and mapfile that take an argument.
var valueFlags = map[string]map[string]bool{
	"read":      {"-d": true, "-i": true, "-n": true, "-N": true, "-p": true, "-t": true, "-u": true},
	"mapfile":   {"-d": true, "-n": true, "-O": true, "-s": true, "-u": true, "-C": true, "-c": true},
	"readarray": {"-d": true, "-n": true, "-O": true, "-s": true, "-u": true, "-C": true, "-c": true},
}

// commandTargets reports the variables commands like read, mapfile,
// getopts and printf -v write.
func (s *Script) commandTargets(c *syntax.CallExpr, fn func(string, syntax.Pos)) {
	name := c.Args[0].Lit()
	args := c.Args[1:]
	switch name {
	case "read", "mapfile", "readarray":
		for i := 0; i < len(args); i++ {
			l := args[i].Lit()
			switch {
			case l == "-a" && i+1 < len(args):
				i++
				fn(args[i].Lit(), args[i].Pos())
			case valueFlags[name][l]:
				i++
			case strings.HasPrefix(l, "-"):
			case isVarName(l):
				fn(l, args[i].Pos())
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
