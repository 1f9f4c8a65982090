package lint

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kitsmith/kitsmith/pkg/spec"
)

func script(t *testing.T, src string) *Script {
	t.Helper()
	s := parseScript(src, func(line, col int) spec.Pos { return spec.Pos{File: "s", Line: line, Col: col} })
	if s == nil {
		t.Fatalf("parse failed:\n%s", src)
	}
	return s
}

func TestReads(t *testing.T) {
	tests := []struct {
		src  string
		want []string // NAME@line:col, * when defaulted
	}{
		{`echo "$A" ${B} '$C'`, []string{"A@1:7", "B@1:11"}},
		{`x=1; echo $x $X`, []string{"X@1:14"}},
		{"cat <<'EOF'\n$A\nEOF\ncat <<EOF\n$B\nEOF", []string{"B@5:1"}},
		{`for f in a; do echo $f; done; echo $F`, []string{"F@1:36"}},
		{`read -r line rest; echo "$line $rest $REPLY"`, nil},
		{`read -p "Name? " -t 5 name; echo $name`, nil},
		{`echo $1 $@ $# $? $$ $! $- $0 $_`, nil},
		{`echo ${A:-d} ${B-d} ${C:+x} ${D:=x} ${E:?fail}`, []string{"A*@1:6", "B*@1:14", "C*@1:21", "D*@1:29", "E@1:37"}},
		{`echo $(( PORT + 1 )) $((n+1)); n=2`, []string{"PORT@1:10"}},
		{`for ((i = 0; i < 3; i++)); do echo $i; done`, nil},
		{`f() { local v=$1; echo "$v"; }; f x`, nil},
		{`echo ${{ kit.args.port }}`, nil},
		{`echo "$RANDOM $BASH_VERSION ${#LEN} ${!REF}"`, []string{"LEN@1:29", "REF@1:37"}},
		{`mapfile -t lines < f; printf -v out '%s' x; echo "${lines[0]} $out"`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			var got []string
			for _, r := range script(t, tt.src).Reads() {
				d := ""
				if r.Defaulted {
					d = "*"
				}
				got = append(got, fmt.Sprintf("%s%s@%d:%d", r.Name, d, r.Pos.Line(), r.Pos.Col()))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Reads (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCommands(t *testing.T) {
	tests := []struct {
		src  string
		want []string // name args… [&]
	}{
		{`sudo -u agent npm i -g x`, []string{"npm i -g x"}},
		{`env -u FOO NO_PROXY=x curl -fsS https://a`, []string{"curl -fsS https://a"}},
		{`timeout -k 5 300 go install x@latest`, []string{"go install x@latest"}},
		{`command -v docker && docker ps`, []string{"docker ps"}},
		{`nohup node server.js & echo started`, []string{"node server.js &", "echo started"}},
		{`/usr/bin/docker compose up -d`, []string{"docker compose up -d"}},
		{`"$cli" run`, []string{" run"}},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			var got []string
			for _, c := range script(t, tt.src).Commands() {
				s := c.Name
				for _, a := range c.Args {
					s += " " + a
				}
				if c.Background {
					s += " &"
				}
				got = append(got, s)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Commands (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAssignments(t *testing.T) {
	tests := []struct {
		src  string
		want []string // NAME=value[x] where x marks exported
	}{
		{`A=1 B="two" cmd; export C=3; D=$X`, []string{"A=1x", "B=twox", "C=3x", "D="}},
		{`env NO_PROXY=local curl x`, []string{"NO_PROXY=localx"}},
		{`declare -x E=5; local F`, []string{"E=5x", "F="}},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			var got []string
			for _, a := range script(t, tt.src).Assignments() {
				x := ""
				if a.Exported {
					x = "x"
				}
				got = append(got, a.Name+"="+a.Value+x)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Assignments (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMaskNeverShowsTheSecret(t *testing.T) {
	for _, v := range []string{"ghp_0123456789abcdefghijABCDEFGHIJ012345", "abcdefgh", "k", "-----BEGIN RSA PRIVATE KEY-----"} {
		m := mask(v)
		if len(v) > 4 && (len(m) == 0 || containsTail(m, v)) {
			t.Errorf("mask(%q) = %q reveals the value", v, m)
		}
	}
}

// containsTail reports whether m shows more than the first quarter of v.
func containsTail(m, v string) bool {
	keep := len(v)/4 + 1
	return keep < len(v) && len(v) > 4 && contains(m, v[:keep])
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestPythonModuleRun(t *testing.T) {
	s := parseScript("python3 -m pip install --user tool\npython3 -m http.server 8000\n", func(line, col int) spec.Pos { return spec.Pos{Line: line, Col: col} })
	var got []string
	for _, c := range s.Commands() {
		got = append(got, c.Name+" "+c.Sub())
	}
	if diff := cmp.Diff([]string{"pip install", "python3 http.server"}, got); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
}
