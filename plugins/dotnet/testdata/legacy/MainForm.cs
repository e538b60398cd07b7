namespace Contoso.Legacy
{
    partial class MainForm { }
}
