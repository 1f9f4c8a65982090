package lint_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportedNamesDocumented fails when an exported name of pkg/lint or
// pkg/lint/format (types, functions, methods, constants, variables and
// struct fields) has no doc comment, or one that does not start with the
// name.
func TestExportedNamesDocumented(t *testing.T) {
	for _, dir := range []string{".", "format"} {
		fset := token.NewFileSet()
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			checkDocs(t, fset, f)
		}
	}
}

func checkDocs(t *testing.T, fset *token.FileSet, f *ast.File) {
	t.Helper()
	need := func(pos token.Pos, name string, doc *ast.CommentGroup, strict bool) {
		if !ast.IsExported(name) {
			return
		}
		text := strings.TrimSpace(doc.Text())
		switch {
		case text == "":
			t.Errorf("%s: exported %s has no doc comment", fset.Position(pos), name)
		case strict && !strings.HasPrefix(text, name+" ") && !strings.HasPrefix(text, "A "+name) && !strings.HasPrefix(text, "An "+name):
			t.Errorf("%s: the doc comment of %s does not start with its name", fset.Position(pos), name)
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil && !exportedRecv(d.Recv) {
				continue
			}
			need(d.Pos(), d.Name.Name, d.Doc, true)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					doc := s.Doc
					if doc == nil {
						doc = d.Doc
					}
					need(s.Pos(), s.Name.Name, doc, true)
					if st, ok := s.Type.(*ast.StructType); ok && ast.IsExported(s.Name.Name) {
						for _, fld := range st.Fields.List {
							for _, n := range fld.Names {
								doc := fld.Doc
								if doc == nil {
									doc = fld.Comment
								}
								need(n.Pos(), n.Name, doc, false)
							}
						}
					}
				case *ast.ValueSpec:
					doc := s.Doc
					if doc == nil {
						doc = d.Doc // a documented group
					}
					for _, n := range s.Names {
						need(n.Pos(), n.Name, doc, false)
					}
				}
			}
		}
	}
}

// exportedRecv reports a method on an exported type.
func exportedRecv(fl *ast.FieldList) bool {
	if len(fl.List) == 0 {
		return false
	}
	typ := fl.List[0].Type
	if s, ok := typ.(*ast.StarExpr); ok {
		typ = s.X
	}
	id, ok := typ.(*ast.Ident)
	return ok && ast.IsExported(id.Name)
}
