Console.WriteLine(string.Join("|", args));
