namespace App.Scratch; class Draft { }
