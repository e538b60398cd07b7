namespace Contoso.Legacy
{
    partial class Program { }
}
