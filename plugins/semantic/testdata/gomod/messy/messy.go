package messy

import (
	"strings"
	"fmt"
)

func Shout(s string)string{
return fmt.Sprint(strings.ToUpper(s))
}
