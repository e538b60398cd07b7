namespace Shop.Core;

// Two types named Memo, nested in different classes: two symbols, not the
// parts of one partial type (csharp-ls names no container for either).
public class Invoice
{
    public class Memo { public string Text = ""; }
}

public class Refund
{
    public class Memo { public string Reason = ""; }
}

// One partial type declared twice: one symbol, with its other part.
public partial class Ledger { public int Opened; }

public partial class Ledger { public int Closed; }
