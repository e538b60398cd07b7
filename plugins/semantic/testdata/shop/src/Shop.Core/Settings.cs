namespace Shop.Core;

public static class Receipt
{
    public sealed class Options { public int Copies { get; set; } }
}

public static class Invoice
{
    public sealed class Options { public bool Paper { get; set; } }
}
