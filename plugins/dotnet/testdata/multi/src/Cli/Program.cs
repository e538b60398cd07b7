Console.WriteLine(new Multi.Lib.Modern.Square(2).Area());
