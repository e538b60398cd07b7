namespace Shop.Legacy;
public class OldOrder { }
