package sim

import (
	"reflect"
	"testing"
	"time"

	"github.com/raftsim/raftsim/server"
)

// The command log gives back every command as it was applied, whatever
// field it sets (a field added to Command and forgotten in isPlainRequest
// would be lost from saved sessions), and keeps plain requests small.
func TestCommandLogKeepsEveryField(t *testing.T) {
	w := &World{}
	var want []Command
	base := Command{At: 5, Kind: CmdPut, Via: "n1", Req: server.Put("k", "v")}
	typ := reflect.TypeOf(base)
	for i := range typ.NumField() {
		c := base
		f := reflect.ValueOf(&c).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("x")
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int64, reflect.Int32:
			f.SetInt(int64(7 * time.Millisecond))
		case reflect.Float64:
			f.SetFloat(0.5)
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		case reflect.Slice:
			if f.Type() == reflect.TypeOf([]string(nil)) {
				f.Set(reflect.ValueOf([]string{"a"}))
			} else {
				f.Set(reflect.ValueOf([][]string{{"a"}}))
			}
		case reflect.Struct:
			f.Set(reflect.ValueOf(server.Get("x", true)))
		default:
			t.Fatalf("field %s: no test value for a %s", typ.Field(i).Name, f.Kind())
		}
		w.logCommand(&c)
		want = append(want, c)
	}
	if got := w.Commands(); !reflect.DeepEqual(got, want) {
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("logged with %s set:\n got %+v\nwant %+v", typ.Field(i).Name, got[i], want[i])
			}
		}
	}
	keysOnly := server.GetPrefix("/", true)
	keysOnly.Range.KeysOnly = true
	for _, plain := range []Command{base, {Kind: CmdGet, Via: "c", Req: keysOnly}, {Kind: CmdWatch, Via: "c", Req: server.Watch("k"), RequireLeader: true}} {
		if l := logged(&plain); l.whole != nil || !reflect.DeepEqual(l.command(), plain) {
			t.Errorf("%+v: logged as %+v, want it kept small and whole again", plain, l)
		}
	}
}
