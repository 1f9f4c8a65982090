package spec
import ("testing";"os")
func TestDbg(t *testing.T){
  src,_ := os.ReadFile(os.Getenv("F"))
  k,err := Parse("x.yaml", src)
  if err!=nil {t.Fatal(err)}
  for _,e := range k.Validate().Errors { t.Logf("E %s [%s|%s] field=%s", e.Error(), e.Code, e.Ref, e.Field) }
  for _,e := range k.Validate().Warnings { t.Logf("W %s", e.Error()) }
}
