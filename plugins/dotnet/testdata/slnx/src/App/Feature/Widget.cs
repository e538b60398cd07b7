namespace App.Feature; class Widget { }
